// procs: the /proc scan of `gpucost procs` and record's gpu_handle events (docs/procs.md). The
// fixture tree testdata/proc-trees/basic is laid out like a real /proc (links in fd/, maps lines,
// NUL-separated cmdline, stat, status, cgroup) with sysfs DRM nodes and an etc/passwd.
#include <catch2/catch.hpp>

#include "support.hpp"

#include <gpucost/core/event_kind.hpp>
#include <gpucost/procs/handle_events.hpp>
#include <gpucost/procs/listing.hpp>
#include <gpucost/procs/proc_files.hpp>
#include <gpucost/procs/scan.hpp>

#include <sys/stat.h>
#include <unistd.h>
#include <filesystem>

using namespace gpucost;
using namespace gpucost::procs;
namespace fs = std::filesystem;

namespace {

const std::string kTree = std::string(GPUCOST_TESTDATA_DIR) + "/proc-trees/basic";

ScanResult scan_tree(const std::string& root, std::vector<std::string> patterns = {}) {
  auto scanner = Scanner::create(ScanOptions{root, std::move(patterns)});
  REQUIRE(scanner);
  auto result = scanner->scan();
  REQUIRE(result);
  return *result;
}

const Holder& holder(const ScanResult& r, int pid) {
  for (const Holder& h : r.holders)
    if (h.pid == pid) return h;
  FAIL("no holder " << pid);
  return r.holders.front();
}

}  // namespace

TEST_CASE("procs: stat's name ends at the last ')', and field 22 is the start", "[procs]") {
  // A real line's shape (52 fields); the name holds spaces and ") ".
  const auto st = parse_stat(
      "2345 (tf (worker) 1) S 2300 2345 2345 0 -1 4194560 97 0 0 0 12 4 0 0 20 0 1 0 720000 3133440 413 "
      "18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0 0 0 0 0 0 0 0 0\n");
  REQUIRE(st);
  CHECK(st->pid == 2345);
  CHECK(st->comm == "tf (worker) 1");
  CHECK(st->state == 'S');
  CHECK(st->ppid == 2300);
  CHECK(st->flags == 4194560);
  CHECK(st->start_ticks == 720000);
  const auto odd = parse_stat("77 (a) b) c) R 1 77 77 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 42 0");
  REQUIRE(odd);
  CHECK(odd->comm == "a) b) c");
  CHECK(odd->start_ticks == 42);
  CHECK_FALSE(parse_stat("77 (short) R 1 77"));  // cut short before field 22
  CHECK_FALSE(parse_stat("not a stat line"));
}

TEST_CASE("procs: start time = btime + ticks / USER_HZ, exactly", "[procs]") {
  CHECK(parse_btime("cpu  1 2 3\nctxt 1990473\nbtime 1718190000\nprocesses 2915\n") == 1718190000);
  CHECK_FALSE(parse_btime("cpu  1 2 3\n"));
  // 360050 ticks at 100 Hz = 3600.50 s after 2024-06-12T11:00:00Z
  CHECK(start_time_ns(1718190000, 360050, 100) == 1718193600'500'000'000);
  CHECK(start_time_ns(1718190000, 1080099, 100) == 1718200800'990'000'000);  // 10800.99 s
  CHECK(start_time_ns(1718190000, 7, 1000) == 1718190000'007'000'000);       // another tick rate
  CHECK(start_time_ns(0, 1, 3) == 333'333'333);                              // truncated, never rounded up
}

TEST_CASE("procs: status gives the effective uid and the namespace pid", "[procs]") {
  const auto st = parse_status("Name:\tpython3\nUid:\t1000\t0\t0\t0\nNSpid:\t5678\t7\n");
  CHECK(st.uid == 0u);  // effective, as ps's USER
  CHECK(st.ns_pid == 7);
  const auto host = parse_status("Uid:\t1000\t1000\t1000\t1000\nNSpid:\t1234\n");
  CHECK(host.uid == 1000u);
  CHECK(host.ns_pid == -1);
  CHECK_FALSE(parse_status("Name:\tx\n").uid);
}

TEST_CASE("procs: cmdline is NUL-separated", "[procs]") {
  const std::string text("python\0train.py\0--name\0a b\0", 27);
  CHECK(split_cmdline(text) == std::vector<std::string>{"python", "train.py", "--name", "a b"});
  CHECK(split_cmdline("").empty());
  CHECK(split_cmdline(std::string("x\0\0", 3)) == std::vector<std::string>{"x", ""});
}

TEST_CASE("procs: cgroup paths name the container, the pod and the Slurm job", "[procs]") {
  const std::string id = "f3b1c2d4e5a6978812345678901234567890abcdefabcdefabcdef0123456789";
  auto c = parse_cgroup("0::/system.slice/docker-" + id + ".scope\n");
  CHECK(c.path == "/system.slice/docker-" + id + ".scope");
  CHECK(c.runtime == "docker");
  CHECK(c.container == id);
  c = parse_cgroup("0::/docker/" + id + "\n");  // cgroupfs driver
  CHECK(c.runtime == "docker");
  CHECK(c.container == id);
  c = parse_cgroup(
      "0::/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-podd6b6a1f2_3c4d_4e5f_8a9b_"
      "0c1d2e3f4a5b.slice/cri-containerd-" +
      id + ".scope\n");
  CHECK(c.runtime == "containerd");
  CHECK(c.container == id);
  CHECK(c.pod_uid == "d6b6a1f2-3c4d-4e5f-8a9b-0c1d2e3f4a5b");
  c = parse_cgroup("0::/kubepods/besteffort/pod0a1b2c3d-0000-4000-8000-000000000001/" + id + "\n");
  CHECK(c.runtime == "kubernetes");
  CHECK(c.pod_uid == "0a1b2c3d-0000-4000-8000-000000000001");
  CHECK(parse_cgroup("0::/kubepods.slice/kubepods-pod1.slice/crio-" + id + ".scope\n").runtime == "cri-o");
  CHECK(parse_cgroup("0::/machine.slice/libpod-" + id + ".scope/container\n").runtime == "podman");
  // conmon, podman's and cri-o's monitor, is not the container
  CHECK(parse_cgroup("0::/machine.slice/libpod-conmon-" + id + ".scope\n").container.empty());
  // Slurm, cgroup v2 and v1; v1 takes the memory controller's path
  c = parse_cgroup("0::/system.slice/slurmstepd.scope/job_4242/step_0/user/task_0\n");
  CHECK(c.slurm_job == "4242");
  c = parse_cgroup("12:memory:/slurm/uid_1000/job_77/step_0/task_0\n1:name=systemd:/system.slice/slurmd.service\n");
  CHECK(c.path == "/slurm/uid_1000/job_77/step_0/task_0");
  CHECK(c.slurm_job == "77");
  // hybrid: v2's "/" gives way to memory's path; an id in another controller's path is found
  c = parse_cgroup("4:memory:/process_api/dc02ef26\n2:cpu:/docker/" + id + "\n0::/\n");
  CHECK(c.path == "/process_api/dc02ef26");
  CHECK(c.container == id);
  // no container: a user session; ids under 12 hex digits are not ids
  c = parse_cgroup("0::/user.slice/user-1000.slice/session-3.scope\n");
  CHECK(c.runtime.empty());
  CHECK(parse_cgroup("0::/system.slice/docker-abc.scope\n").container.empty());
  CHECK(parse_cgroup("").path.empty());
}

TEST_CASE("procs: maps lines give the path, with spaces and (deleted)", "[procs]") {
  auto m = parse_maps_line("7f3a2c000000-7f3a2c200000 rw-s 00000000 00:05 1234                       /dev/nvidia0");
  REQUIRE(m);
  CHECK(m->end - m->start == 0x200000);
  CHECK(m->path == "/dev/nvidia0");
  CHECK_FALSE(m->deleted);
  m = parse_maps_line(
      "7f3a2c000000-7f3a2c100000 rw-s 00000000 00:05 1235                       /dev/nvidia1 (deleted)");
  REQUIRE(m);
  CHECK(m->path == "/dev/nvidia1");
  CHECK(m->deleted);
  m = parse_maps_line("7f00-7f10 r--p 00000000 08:01 99                         /home/a b/lib x.so");
  REQUIRE(m);
  CHECK(m->path == "/home/a b/lib x.so");
  m = parse_maps_line("7f3a33000000-7f3a33021000 rw-p 00000000 00:00 0 ");
  REQUIRE(m);
  CHECK(m->path.empty());
  CHECK_FALSE(parse_maps_line("7f3a33000000 rw-p"));
  CHECK_FALSE(parse_maps_line("zz-7f r--p 0 0:0 0"));
}

TEST_CASE("procs: device paths are classified by the names of /dev", "[procs]") {
  const auto kind = [](std::string_view p) { return classify_device_path(p); };
  CHECK(kind("/dev/nvidia0")->kind == DeviceKind::gpu);
  CHECK(kind("/dev/nvidia13")->gpu == 13);
  CHECK(kind("/dev/nvidiactl")->kind == DeviceKind::control);
  CHECK(kind("/dev/nvidia-uvm")->kind == DeviceKind::uvm);
  CHECK(kind("/dev/nvidia-uvm-tools")->kind == DeviceKind::uvm_tools);
  CHECK(kind("/dev/nvidia-modeset")->kind == DeviceKind::modeset);
  CHECK(kind("/dev/nvidia-caps/nvidia-cap1")->kind == DeviceKind::caps);
  CHECK(kind("/dev/nvidia-nvswitch3")->kind == DeviceKind::nvswitch);
  CHECK(kind("/dev/nvidia-caps-imex-channels/channel0")->kind == DeviceKind::nvidia_other);
  CHECK(kind("/dev/dri/card0")->kind == DeviceKind::drm_card);
  CHECK(kind("/dev/dri/renderD128")->kind == DeviceKind::drm_render);
  CHECK_FALSE(kind("/dev/dri/by-path/pci-0000:01:00.0-card"));
  CHECK_FALSE(kind("/dev/null"));
  CHECK_FALSE(kind("/home/alice/nvidia0"));  // not in /dev: only --device-pattern counts it
  CHECK(kind("/dev/nvidia0")->gpu == 0);
  CHECK(classify_pattern_path("/tmp/fake/nvidia3").kind == DeviceKind::gpu);
  CHECK(classify_pattern_path("/tmp/fake/nvidia3").gpu == 3);
  CHECK(classify_pattern_path("/tmp/fake/nvidiactl").kind == DeviceKind::control);
  CHECK(classify_pattern_path("/tmp/fake/card0").kind == DeviceKind::pattern);
}

TEST_CASE("procs: the fixture tree's holders, hand-checked", "[procs]") {
  const ScanResult r = scan_tree(kTree);
  CHECK(r.root == kTree);
  CHECK(r.boot_ns == 1718190000'000'000'000);  // btime: 2024-06-12T11:00:00Z
  CHECK(r.processes == 10);                    // 1 2 1234 2345 3456 4567 5678 6789 7890 8901
  CHECK(r.kernel_threads == 1);                // kthreadd
  CHECK(r.vanished == 1);                      // 7890: fd/ still there, stat gone
  std::vector<int> pids;
  for (const Holder& h : r.holders) pids.push_back(h.pid);
  CHECK(pids == std::vector<int>{1234, 2345, 3456, 4567, 5678, 8901});

  const Holder& py = holder(r, 1234);
  CHECK(py.user == "alice");  // the tree's etc/passwd
  CHECK(py.uid == 1000u);
  CHECK(py.command() == "python train.py --epochs 3");
  CHECK(py.start_ns == 1718193600'500'000'000);  // 360050 ticks = 3600.50 s after boot
  CHECK(py.container.runtime == "docker");
  CHECK(py.gpus() == std::vector<int>{0, 1});
  REQUIRE(py.devices.size() == 4);
  CHECK(py.devices[0].path == "/dev/nvidia0");
  CHECK(py.devices[0].fds == 2);       // fd 5 and fd 7
  CHECK(py.devices[0].mappings == 2);  // 0x200000 + 0x10000 bytes
  CHECK(py.devices[0].mapped_bytes == 2162688);
  CHECK(py.devices[1].path == "/dev/nvidia1");
  CHECK(py.devices[2].path == "/dev/nvidiactl");
  CHECK(py.devices[2].mapped_bytes == 4096);
  CHECK(py.devices[3].path == "/dev/nvidia-uvm");
  CHECK(py.devices[3].mapped_bytes == 4194304);

  const Holder& tf = holder(r, 2345);
  CHECK(tf.comm == "tf (worker) 1");
  CHECK(tf.container.slurm_job == "4242");
  CHECK(tf.cgroup == "/slurm/uid_1000/job_4242/step_0/task_0");
  REQUIRE(tf.devices.size() == 1);
  CHECK(tf.devices[0].fds == 0);
  CHECK(tf.devices[0].mappings == 1);
  CHECK(tf.devices[0].deleted);
  CHECK(tf.start_ns == 1718197200'000'000'000);  // 13:00:00Z

  CHECK(holder(r, 3456).user == "nvidia-persistenced");
  const Holder& xorg = holder(r, 4567);  // card0 is NVIDIA's (0x10de); card1, renderD129 Intel's
  REQUIRE(xorg.devices.size() == 2);
  CHECK(xorg.devices[0].kind == DeviceKind::modeset);
  CHECK(xorg.devices[1].path == "/dev/dri/card0");
  CHECK(xorg.devices[1].pci == "0000:01:00.0");
  CHECK(xorg.gpus().empty());

  const Holder& vllm = holder(r, 5678);
  CHECK(vllm.ns_pid == 7);
  CHECK(vllm.container.runtime == "containerd");
  CHECK(vllm.container.pod_uid == "d6b6a1f2-3c4d-4e5f-8a9b-0c1d2e3f4a5b");
  CHECK(vllm.gpus() == std::vector<int>{2});

  const Holder& dcgm = holder(r, 8901);
  std::vector<DeviceKind> kinds;
  for (const DeviceUse& d : dcgm.devices) kinds.push_back(d.kind);
  CHECK(kinds ==
        std::vector<DeviceKind>{DeviceKind::control, DeviceKind::uvm_tools, DeviceKind::caps, DeviceKind::nvswitch});

  REQUIRE(r.unreadable.size() == 1);  // 6789: fd/ cannot be listed
  CHECK(r.unreadable[0].pid == 6789);
  CHECK(r.unreadable[0].what == "fd");
  CHECK(r.unreadable[0].reason == "Not a directory");
  CHECK(r.unreadable[0].user == "root");
  CHECK(r.unreadable[0].comm == "sshd");
  CHECK(unreadable_summary(r) ==
        "1 process could not be read (fd: Not a directory; users root 1): the device files "
        "they hold are not known");
  CHECK(placement(py) == "docker:f3b1c2d4e5a6");
  CHECK(placement(tf) == "slurm job 4242");
  CHECK(placement(holder(r, 3456)) == "/system.slice/nvidia-persistenced.service");
}

TEST_CASE("procs: --device-pattern adds paths, classified by their file name", "[procs]") {
  const ScanResult r = scan_tree(kTree, {"^/home/alice/slurm-[0-9]+\\.out$"});
  const Holder& tf = holder(r, 2345);
  REQUIRE(tf.devices.size() == 2);
  CHECK(tf.devices[1].path == "/home/alice/slurm-4242.out");
  CHECK(tf.devices[1].kind == DeviceKind::pattern);
  CHECK(tf.devices[1].by_pattern);
  CHECK(tf.devices[1].fds == 2);
  auto bad = Scanner::create(ScanOptions{kTree, {"(unclosed"}});
  REQUIRE_FALSE(bad);
  CHECK(bad.error().message.find("--device-pattern '(unclosed'") == 0);
}

TEST_CASE("procs: a root that is a /proc itself, or has no btime, is refused with a hint", "[procs]") {
  auto proc_itself = Scanner::create(ScanOptions{kTree + "/proc", {}});
  REQUIRE_FALSE(proc_itself);
  CHECK(proc_itself.error().hint.find("looks like a /proc itself") != std::string::npos);
  static const test::ScratchDir dir{"procs-root"};
  fs::create_directories(dir.path() / "proc");
  { std::ofstream(dir.path() / "proc" / "stat") << "cpu  1 2 3\n"; }
  auto no_btime = Scanner::create(ScanOptions{dir.path().string(), {}});
  REQUIRE_FALSE(no_btime);
  CHECK(no_btime.error().message.find("no btime line") != std::string::npos);
}

TEST_CASE("procs: a process that ends or hides while read is counted, never a crash", "[procs]") {
  static const test::ScratchDir dir{"procs-races"};
  const fs::path root = dir.path() / "tree";
  fs::copy(kTree, root, fs::copy_options::recursive | fs::copy_options::copy_symlinks);
  fs::create_directories(root / "proc" / "9999");  // listed, then gone: no file left in it
  const ScanResult r = scan_tree(root.string());
  CHECK(r.vanished == 2);
  CHECK(r.holders.size() == 6);
  // An fd/ that cannot be opened (another user's, EACCES): root reads it anyway, so only as a user.
  if (::geteuid() != 0) {
    fs::permissions(root / "proc" / "1234" / "fd", fs::perms::none);
    const ScanResult hidden = scan_tree(root.string());
    fs::permissions(root / "proc" / "1234" / "fd", fs::perms::owner_all);
    const Holder& py = holder(hidden, 1234);  // still listed from its maps, marked partial
    CHECK(py.partial);
    CHECK(py.devices[0].fds == 0);
    CHECK(hidden.unreadable.size() == 2);
    CHECK(hidden.unreadable[0].reason == "Permission denied");
  }
}

TEST_CASE("procs: the JSON document and the table of the fixture", "[procs]") {
  const ScanResult r = scan_tree(kTree);
  const std::string json = procs_json(r);
  CHECK(json.find("\"schema\": \"gpucost.procs\",\n  \"version\": 1") != std::string::npos);
  CHECK(json.find("\"start\": \"2024-06-12T12:00:00.5Z\", \"start_ns\": 1718193600500000000") != std::string::npos);
  CHECK(json.find("\"comm\": \"tf (worker) 1\"") != std::string::npos);
  CHECK(json.find("{\"path\": \"/dev/dri/card0\", \"kind\": \"drm_card\", \"gpu\": null, \"pci\": \"0000:01:00.0\"") !=
        std::string::npos);
  const std::string table = procs_table(r);
  CHECK(table.find("1234  alice") != std::string::npos);
  CHECK(table.find("2024-06-12 12:00:00  0,1") != std::string::npos);
  CHECK(table.find("holders of NVIDIA device files: 6 of 10 processes in " + kTree +
                   "/proc (1 kernel thread passed by, 1 process ended while read)") != std::string::npos);
}

TEST_CASE("procs: gpu_handle events say held, released and still_held, one per GPU", "[procs]") {
  ScanResult first = scan_tree(kTree);
  HandleTracker tracker("node-1", kTree, false);
  test::CollectingSink sink;
  tracker.update(first, 100, sink);
  // 1234: GPUs 0, 1 → two events; 2345: GPU 1; 3456: 0, 1; 4567: none → one; 5678: 2; 8901: none
  CHECK(sink.events.size() == 8);
  const auto& e = sink.events.front();
  CHECK(e.kind == "gpu_handle");
  CHECK(e.source == "procs");
  CHECK(e.host == "node-1");
  CHECK(e.gpu == 0);
  CHECK(e.metric("pid") == 1234);
  CHECK(test::field(e, "state") == "held");
  CHECK(test::field(e, "devices") == "/dev/nvidia0,/dev/nvidia1,/dev/nvidiactl,/dev/nvidia-uvm");
  CHECK(test::field(e, "gpus") == "0,1");
  CHECK(test::field(e, "start_ns") == "1718193600500000000");
  CHECK(test::field(e, "container_id").substr(0, 12) == "f3b1c2d4e5a6");
  CHECK(test::field(e, "role") == "<absent>");  // a fixture's pids are not this machine's
  CHECK(test::field(e, "proc_root") == kTree);
  // Nothing changed: nothing written.
  sink.events.clear();
  tracker.update(first, 200, sink);
  CHECK(sink.events.empty());
  // 5678 ended; 4567 closed card0: released, and held again with its new set.
  ScanResult second = first;
  second.holders.erase(second.holders.begin() + 4);  // 5678
  second.holders[3].devices.pop_back();              // 4567 without card0
  tracker.update(second, 300, sink);
  REQUIRE(sink.events.size() == 2);
  CHECK(sink.events[0].metric("pid") == 4567);
  CHECK(test::field(sink.events[0], "state") == "held");
  CHECK(test::field(sink.events[0], "devices") == "/dev/nvidia-modeset");
  CHECK(sink.events[1].metric("pid") == 5678);
  CHECK(sink.events[1].gpu == 2);
  CHECK(test::field(sink.events[1], "state") == "released");
  CHECK(test::field(sink.events[1], "last_seen_ns") == "200");
  sink.events.clear();
  tracker.finish(400, sink);
  CHECK(sink.events.size() == 7);
  for (const auto& ev : sink.events) CHECK(test::field(ev, "state") == "still_held");
  CHECK(tracker.events() == 17);
}

TEST_CASE("procs: the role follows the parents to the recorded command or to gpucost", "[procs]") {
  ScanResult r;
  r.parents = {{1, 0}, {100, 1}, {200, 100}, {300, 200}, {400, 1}};
  CHECK(r.descends_from(300, 100));
  CHECK(r.descends_from(100, 100));
  CHECK_FALSE(r.descends_from(400, 100));
  CHECK_FALSE(r.descends_from(999, 100));
  r.parents[500] = 501;
  r.parents[501] = 500;  // a loop ends the walk
  CHECK_FALSE(r.descends_from(500, 100));
}

TEST_CASE("procs: on this machine each holder has a role: command, gpucost or other", "[procs]") {
  ScanResult r;
  r.parents = {{1, 0}, {50, 1}, {60, 50}, {70, 60}, {80, 50}, {90, 1}};  // 50 gpucost, 60 the command
  for (const int pid : {70, 80, 90}) {
    Holder h;
    h.pid = pid;
    h.devices.push_back(DeviceUse{"/dev/nvidia0", DeviceKind::gpu, 0, {}, 1, 0, 0, false, false});
    r.holders.push_back(h);
  }
  HandleTracker tracker("node-1", "/", true);
  tracker.set_self_pid(50);
  tracker.set_command_pid(60);
  test::CollectingSink sink;
  tracker.update(r, 100, sink);
  REQUIRE(sink.events.size() == 3);
  CHECK(test::field(sink.events[0], "role") == "command");  // 70, the command's child
  CHECK(test::field(sink.events[1], "role") == "gpucost");  // 80, the sampler
  CHECK(test::field(sink.events[2], "role") == "other");    // 90
}
