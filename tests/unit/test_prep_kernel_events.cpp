// prep: classification of kernel and system messages (src/prep/kernel/kernel_events.hpp) and the Xid
// catalogue compiled from data/nvidia-xid-catalog.tsv. Messages below are written by hand in the
// shape of the corpus lines (docs/formats.md, "Kernel logs" and "journalctl -o json") and of the
// kernel / NVIDIA driver / systemd format strings; every event's fields are checked exactly.
#include <catch2/catch.hpp>

#include "prep/kernel/kernel_events.hpp"

#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace prep = gpucost::prep;
using Fields = std::map<std::string, std::string>;

namespace {

struct Result {
  bool matched = false;
  std::string kind;
  Fields fields;
};

Result classify(std::string_view ident, std::string_view message) {
  gpucost::Event ev;
  ev.kind = "untouched";
  Result r;
  r.matched = prep::classify_message(ident, message, ev);
  r.kind = std::string(ev.kind);
  for (const auto& f : ev.fields) {
    INFO("field " << f.key);
    CHECK(r.fields.count(std::string(f.key)) == 0);  // no key twice
    r.fields[std::string(f.key)] = std::string(f.value);
  }
  if (!r.matched) {
    CHECK(r.kind == "untouched");
    CHECK(r.fields.empty());
  }
  return r;
}

/// The message is an event of `kind` with exactly `fields`.
void expect(std::string_view ident, std::string_view message, const std::string& kind, const Fields& fields) {
  INFO("ident '" << ident << "' message '" << message << "'");
  const Result r = classify(ident, message);
  REQUIRE(r.matched);
  CHECK(r.kind == kind);
  CHECK(r.fields == fields);
}

void expect_kernel(std::string_view message, const std::string& kind, const Fields& fields) {
  expect("kernel", message, kind, fields);
  expect("", message, kind, fields);  // dmesg: no ident
}

void expect_none(std::string_view ident, std::string_view message) {
  INFO("ident '" << ident << "' message '" << message << "'");
  const Result r = classify(ident, message);
  CHECK_FALSE(r.matched);
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

}  // namespace

// ---- xid ------------------------------------------------------------------------------------

TEST_CASE("kernel events: Xid lines of every driver generation", "[kernel][xid]") {
  // Old drivers: no pid/name; the message is NVIDIA's text.
  expect_kernel("NVRM: Xid (PCI:0000:01:00): 79, GPU has fallen off the bus.", "xid",
                {{"code", "79"},
                 {"pci", "0000:01:00"},
                 {"xid_name", "ROBUST_CHANNEL_GPU_HAS_FALLEN_OFF_THE_BUS"},
                 {"bucket", "reboot"},
                 {"cause", "hardware"},
                 {"message", "GPU has fallen off the bus."}});
  // pid and name unknown.
  expect_kernel(
      "NVRM: Xid (PCI:0000:38:00): 13, pid='<unknown>', name=<unknown>, Graphics SM Warp Exception on (GPC 2, TPC 1, "
      "SM 0): Out Of Range Address",
      "xid",
      {{"code", "13"},
       {"pci", "0000:38:00"},
       {"xid_name", "ROBUST_CHANNEL_GR_EXCEPTION / ROBUST_CHANNEL_GR_ERROR_SW_NOTIFY"},
       {"bucket", "restart_app"},
       {"cause", "application"},
       {"message", "Graphics SM Warp Exception on (GPC 2, TPC 1, SM 0): Out Of Range Address"}});
  // pid and process name.
  expect_kernel("NVRM: Xid (PCI:0000:38:00): 43, pid=2815167, name=pt_main_thread, Ch 00000008", "xid",
                {{"code", "43"},
                 {"pci", "0000:38:00"},
                 {"pid", "2815167"},
                 {"process", "pt_main_thread"},
                 {"xid_name", "ROBUST_CHANNEL_RESETCHANNEL_VERIF_ERROR"},
                 {"bucket", "ignore"},
                 {"cause", "application"},
                 {"message", "Ch 00000008"}});
  expect_kernel(
      "NVRM: Xid (PCI:0000:9b:00): 119, pid=2024380, name=nvidia-smi, Timeout after 6s of waiting for RPC response "
      "from GPU4 GSP! Expected function 76 (GSP_RM_CONTROL) (0x20802a02 0x8).",
      "xid",
      {{"code", "119"},
       {"pci", "0000:9b:00"},
       {"pid", "2024380"},
       {"process", "nvidia-smi"},
       {"xid_name", "GSP_RPC_TIMEOUT"},
       {"bucket", "reset_gpu"},
       {"cause", "hardware"},
       {"message",
        "Timeout after 6s of waiting for RPC response from GPU4 GSP! Expected function 76 (GSP_RM_CONTROL) "
        "(0x20802a02 0x8)."}});
  // Older drivers print the bus id without "PCI:".
  expect_kernel("NVRM: Xid (0000:01:00): 13, 0005 00000000 0000502d 00000104 00000000 00000100", "xid",
                {{"code", "13"},
                 {"pci", "0000:01:00"},
                 {"xid_name", "ROBUST_CHANNEL_GR_EXCEPTION / ROBUST_CHANNEL_GR_ERROR_SW_NOTIFY"},
                 {"bucket", "restart_app"},
                 {"cause", "application"},
                 {"message", "0005 00000000 0000502d 00000104 00000000 00000100"}});
  expect_kernel("NVRM: Xid (0000:01:00): 31, Ch 0000000b, engmask 00000120, intr 10000000", "xid",
                {{"code", "31"},
                 {"pci", "0000:01:00"},
                 {"xid_name", "ROBUST_CHANNEL_FIFO_ERROR_MMU_ERR_FLT"},
                 {"bucket", "restart_app"},
                 {"cause", "application"},
                 {"message", "Ch 0000000b, engmask 00000120, intr 10000000"}});
  // 8-hex-digit domain, bus id with a function.
  expect_kernel(
      "NVRM: Xid (PCI:00000000:3b:00): 48, pid='<unknown>', name=<unknown>, An uncorrectable double bit "
      "error (DBE) has been detected on GPU in the framebuffer at partition 2, subpartition 0.",
      "xid",
      {{"code", "48"},
       {"pci", "00000000:3b:00"},
       {"xid_name", "ROBUST_CHANNEL_GPU_ECC_DBE"},
       {"bucket", "reset_gpu"},
       {"cause", "hardware"},
       {"message",
        "An uncorrectable double bit error (DBE) has been detected on GPU in the framebuffer at "
        "partition 2, subpartition 0."}});
  expect_kernel("NVRM: Xid (PCI:0000:00:1e.0): 79, pid=0, GPU has fallen off the bus.", "xid",
                {{"code", "79"},
                 {"pci", "0000:00:1e.0"},
                 {"pid", "0"},
                 {"xid_name", "ROBUST_CHANNEL_GPU_HAS_FALLEN_OFF_THE_BUS"},
                 {"bucket", "reboot"},
                 {"cause", "hardware"},
                 {"message", "GPU has fallen off the bus."}});
}

TEST_CASE("kernel events: MIG attribution, GPU names, row remapping, Xid 154", "[kernel][xid]") {
  expect_kernel(
      "NVRM: Xid (PCI:0000:b3:00 GPU-I:05 GPU-CI:01): 94, pid=7194, name=python3, Contained: CE User "
      "Channel (0x9). RST: No, D-RST: No",
      "xid",
      {{"code", "94"},
       {"pci", "0000:b3:00"},
       {"gpu_instance", "5"},
       {"compute_instance", "1"},
       {"pid", "7194"},
       {"process", "python3"},
       {"xid_name", "ROBUST_CHANNEL_CONTAINED_ERROR"},
       {"bucket", "restart_app"},
       {"cause", "hardware"},
       {"message", "Contained: CE User Channel (0x9). RST: No, D-RST: No"}});
  // NVIDIA's memory-error guide shows a pid without a name.
  expect_kernel(
      "NVRM: Xid (PCI:0000:01:00 GPU-I:05): 94, pid=7194, Contained: CE User Channel (0x9). RST: No, "
      "D-RST: No",
      "xid",
      {{"code", "94"},
       {"pci", "0000:01:00"},
       {"gpu_instance", "5"},
       {"pid", "7194"},
       {"xid_name", "ROBUST_CHANNEL_CONTAINED_ERROR"},
       {"bucket", "restart_app"},
       {"cause", "hardware"},
       {"message", "Contained: CE User Channel (0x9). RST: No, D-RST: No"}});
  expect_kernel("NVRM: Xid (GPU4): 120, pid=51234, name=python, GSP task exception", "xid",
                {{"code", "120"},
                 {"gpu_ref", "GPU4"},
                 {"pid", "51234"},
                 {"process", "python"},
                 {"xid_name", "GSP_ERROR"},
                 {"bucket", "reset_gpu"},
                 {"cause", "hardware"},
                 {"message", "GSP task exception"}});
  expect_kernel(
      "NVRM: Xid (PCI:0000:10:1c): 63, pid=1896, Row Remapper: New row marked for remapping, reset gpu to "
      "activate.",
      "xid",
      {{"code", "63"},
       {"pci", "0000:10:1c"},
       {"pid", "1896"},
       {"xid_name", "INFOROM_DRAM_RETIREMENT_EVENT"},
       {"bucket", "ignore"},
       {"cause", "hardware"},
       {"message", "Row Remapper: New row marked for remapping, reset gpu to activate."}});
  // Xid 154: the bucket comes from the recovery action the message names.
  expect_kernel(
      "NVRM: Xid (PCI:0000:01:00): 154, GPU recovery action changed from 0x0 (None) to 0x2 (Node Reboot "
      "Required)",
      "xid",
      {{"code", "154"},
       {"pci", "0000:01:00"},
       {"xid_name", "GPU_RECOVERY_ACTION_CHANGED"},
       {"bucket", "reboot"},
       {"cause", "hardware"},
       {"recovery_action", "Node Reboot Required"},
       {"message", "GPU recovery action changed from 0x0 (None) to 0x2 (Node Reboot Required)"}});
  expect_kernel(
      "NVRM: Xid (PCI:0008:01:00): 154, GPU recovery action changed from 0x0 (None) to 0x1 (GPU Reset "
      "Required)",
      "xid",
      {{"code", "154"},
       {"pci", "0008:01:00"},
       {"xid_name", "GPU_RECOVERY_ACTION_CHANGED"},
       {"bucket", "reset_gpu"},
       {"cause", "hardware"},
       {"recovery_action", "GPU Reset Required"},
       {"message", "GPU recovery action changed from 0x0 (None) to 0x1 (GPU Reset Required)"}});
  CHECK(classify("kernel",
                 "NVRM: Xid (PCI:0000:01:00): 154, GPU recovery action changed from 0x0 (None) to 0x2 (OS "
                 "Reboot)")
            .fields["bucket"] == "reboot");
  CHECK(classify("kernel",
                 "NVRM: Xid (PCI:0000:0d:00): 154, GPU recovery action changed from 0x0 (None) to 0x1 (PF "
                 "FLR)")
            .fields["bucket"] == "reset_gpu");
  CHECK(classify("kernel",
                 "NVRM: Xid (PCI:0000:01:00): 154, GPU recovery action changed from 0x2 (Node Reboot "
                 "Required) to 0x0 (None)")
            .fields["bucket"] == "ignore");
  CHECK(classify("kernel", "NVRM: Xid (PCI:0000:01:00): 154, GPU recovery action changed from 0x0 (None) to 0x3")
            .fields["bucket"] == "restart_app");
}

TEST_CASE("kernel events: unknown Xid codes, printk stamps, repeated lines", "[kernel][xid]") {
  expect_kernel("NVRM: Xid (PCI:0000:01:00): 999, pid=12, name=a.out, something new", "xid",
                {{"code", "999"},
                 {"pci", "0000:01:00"},
                 {"pid", "12"},
                 {"process", "a.out"},
                 {"bucket", "unknown"},
                 {"cause", "unknown"},
                 {"message", "something new"}});
  expect_kernel("NVRM: Xid (PCI:0000:01:00): 79", "xid",
                {{"code", "79"},
                 {"pci", "0000:01:00"},
                 {"xid_name", "ROBUST_CHANNEL_GPU_HAS_FALLEN_OFF_THE_BUS"},
                 {"bucket", "reboot"},
                 {"cause", "hardware"},
                 {"message", ""}});
  // Ubuntu's rsyslog keeps the printk stamp in the message; trailing CR and blanks are dropped.
  expect("kernel", "[ 4564.303884] NVRM: Xid (PCI:0000:01:00): 79, GPU has fallen off the bus.  \r", "xid",
         {{"code", "79"},
          {"pci", "0000:01:00"},
          {"xid_name", "ROBUST_CHANNEL_GPU_HAS_FALLEN_OFF_THE_BUS"},
          {"bucket", "reboot"},
          {"cause", "hardware"},
          {"message", "GPU has fallen off the bus."}});
  // rsyslog's repeat collapsing: one event with the count.
  expect("kernel", "message repeated 3 times: [ NVRM: Xid (PCI:0000:01:00): 31, pid=1234, name=python3, Ch 00000008]",
         "xid",
         {{"code", "31"},
          {"pci", "0000:01:00"},
          {"pid", "1234"},
          {"process", "python3"},
          {"xid_name", "ROBUST_CHANNEL_FIFO_ERROR_MMU_ERR_FLT"},
          {"bucket", "restart_app"},
          {"cause", "application"},
          {"message", "Ch 00000008"},
          {"repeat", "3"}});
  expect("kernel",
         "message repeated 2 times: [ [ 4564.303884] NVRM: Xid (PCI:0000:01:00): 79, GPU has fallen off the "
         "bus.]",
         "xid",
         {{"code", "79"},
          {"pci", "0000:01:00"},
          {"xid_name", "ROBUST_CHANNEL_GPU_HAS_FALLEN_OFF_THE_BUS"},
          {"bucket", "reboot"},
          {"cause", "hardware"},
          {"message", "GPU has fallen off the bus."},
          {"repeat", "2"}});
  expect_none("kernel", "message repeated 2 times: [ usb 1-1: reset high-speed USB device number 2 using xhci_hcd]");
}

TEST_CASE("kernel events: Xid-like text that is no Xid", "[kernel][xid][negative]") {
  // User programs quoting kernel lines are not the kernel.
  expect_none("python3", "NVRM: Xid (PCI:0000:01:00): 79, GPU has fallen off the bus.");
  expect_none("bash", "grep Xid /var/log/syslog");
  expect_none("kernel", "Xid 79 detected on GPU 0");
  expect_none("kernel", "NVRM: Xid (PCI:0000:66:00): abc, pid=2280636");
  expect_none("kernel", "NVRM: Xid (PCI:0000:66:00) 79, missing colon");
  expect_none("kernel", "NVRM: Xid (PCI:0000:66:00: 79, unclosed");
  expect_none("kernel", "NVRM: Xid (PCI:0000:66:00): 79abc");
  expect_none("", "myprog[12]: NVRM: Xid (PCI:0000:01:00): 79, GPU has fallen off the bus.");
}

// ---- gpu_lost -------------------------------------------------------------------------------

TEST_CASE("kernel events: GPU lost from the bus, init failures", "[kernel][gpu_lost]") {
  expect_kernel("NVRM: GPU at 0000:01:00.0 has fallen off the bus.", "gpu_lost",
                {{"cause", "fallen_off_bus"},
                 {"pci", "0000:01:00.0"},
                 {"message", "NVRM: GPU at 0000:01:00.0 has fallen off the bus."}});
  expect_kernel("NVRM: GPU 0000:29:00.0: GPU has fallen off the bus.", "gpu_lost",
                {{"cause", "fallen_off_bus"},
                 {"pci", "0000:29:00.0"},
                 {"message", "NVRM: GPU 0000:29:00.0: GPU has fallen off the bus."}});
  // The 3-line notice of newer drivers, joined by the parser (continuation lines are indented).
  const std::string joined =
      "NVRM: The NVIDIA GPU 0000:b3:00.0\n"
      "               NVRM: (PCI ID: 10de:26b5) installed in this system has\n"
      "               NVRM: fallen off the bus and is not responding to commands.";
  expect_kernel(joined, "gpu_lost",
                {{"cause", "fallen_off_bus"}, {"pci", "0000:b3:00.0"}, {"pci_id", "10de:26b5"}, {"message", joined}});
  // Joined with single spaces (the dmesg parser does so).
  const std::string spaced =
      "NVRM: The NVIDIA GPU 0000:b3:00.0 NVRM: (PCI ID: 10de:26b5) installed in this system has NVRM: fallen off the "
      "bus and is not responding to commands.";
  expect_kernel(spaced, "gpu_lost",
                {{"cause", "fallen_off_bus"}, {"pci", "0000:b3:00.0"}, {"pci_id", "10de:26b5"}, {"message", spaced}});
  // ... and not joined: the third line makes the event, the others continue it.
  expect_none("kernel", "NVRM: The NVIDIA GPU 0000:b3:00.0");
  expect_none("kernel", "NVRM: (PCI ID: 10de:26b5) installed in this system has");
  expect_kernel(
      "NVRM: fallen off the bus and is not responding to commands.", "gpu_lost",
      {{"cause", "fallen_off_bus"}, {"message", "NVRM: fallen off the bus and is not responding to commands."}});
  CHECK(prep::continues_incident("gpu_lost", "NVRM: (PCI ID: 10de:26b5) installed in this system has"));
  CHECK(prep::continues_incident("gpu_lost", "               NVRM: (PCI ID: 10de:26b5) installed in this system has"));
  expect_kernel("NVRM: RmInitAdapter failed! (0x25:0x65:1457)", "gpu_lost",
                {{"cause", "init_failed"}, {"message", "NVRM: RmInitAdapter failed! (0x25:0x65:1457)"}});
  expect_kernel("NVRM: GPU 0000:01:00.0: RmInitAdapter failed! (0x26:0x56:1474)", "gpu_lost",
                {{"cause", "init_failed"},
                 {"pci", "0000:01:00.0"},
                 {"message", "NVRM: GPU 0000:01:00.0: RmInitAdapter failed! (0x26:0x56:1474)"}});

  // The UUID line printed before a GPU's first Xid, the crash-dump notice, the paired
  // rm_init_adapter line and suspend failures are not GPU losses.
  expect_none("kernel", "NVRM: GPU at PCI:0000:01:00: GPU-435cb66f-d89f-a234-9414-70b032521666");
  expect_none("kernel", "NVRM: A GPU crash dump has been created. If possible, please run");
  expect_none("kernel", "NVRM: nvidia-bug-report.sh as root to collect this data before");
  expect_none("kernel", "NVRM: GPU 0000:01:00.0: rm_init_adapter failed, device minor number 0");
  expect_none("kernel",
              "NVRM: GPU 0000:01:00.0: PreserveVideoMemoryAllocations module parameter is set. System Power Management "
              "attempted without driver procfs suspend interface. Please refer to the 'Configuring Power Management "
              "Support' section in the driver README.");
  expect_none("kernel", "NVRM: The NVIDIA probe routine failed for 1 device(s).");
  expect_none("kernel", "NVRM: GPU4 RPC history (CPU -> GSP):");
  CHECK(prep::continues_incident("gpu_lost", "NVRM: A GPU crash dump has been created. If possible, please run"));
  CHECK(prep::continues_incident("xid", "NVRM: GPU4 RPC history (CPU -> GSP):"));
  CHECK(prep::continues_incident("xid", "NVRM:     entry function                   data0              data1"));
  CHECK_FALSE(prep::continues_incident("xid", "NVRM: Xid (PCI:0000:01:00): 79, GPU has fallen off the bus."));
  CHECK_FALSE(prep::continues_incident("gpu_lost", "usb 1-1: new high-speed USB device number 2 using xhci_hcd"));
}

// ---- aer ------------------------------------------------------------------------------------

TEST_CASE("kernel events: PCIe AER, one event per 'PCIe Bus Error' line", "[kernel][aer]") {
  expect_kernel(
      "pcieport 0000:00:03.1: PCIe Bus Error: severity=Correctable, type=Data Link Layer, (Transmitter ID)", "aer",
      {{"severity", "corrected"},
       {"device", "0000:00:03.1"},
       {"driver", "pcieport"},
       {"error_type", "Data Link Layer"},
       {"agent", "Transmitter ID"},
       {"message",
        "pcieport 0000:00:03.1: PCIe Bus Error: severity=Correctable, type=Data Link Layer, (Transmitter ID)"}});
  // Newer kernels prefix AER lines with "AER: ".
  expect_kernel(
      "pcieport 0000:00:1c.5: AER: PCIe Bus Error: severity=Corrected, type=Physical Layer, (Receiver ID)", "aer",
      {{"severity", "corrected"},
       {"device", "0000:00:1c.5"},
       {"driver", "pcieport"},
       {"error_type", "Physical Layer"},
       {"agent", "Receiver ID"},
       {"message",
        "pcieport 0000:00:1c.5: AER: PCIe Bus Error: severity=Corrected, type=Physical Layer, (Receiver ID)"}});
  // The error is about the GPU itself: the line carries the GPU's driver and address.
  expect_kernel(
      "nvidia 0000:01:00.0: AER: PCIe Bus Error: severity=Uncorrected (Non-Fatal), type=Transaction Layer, "
      "(Requester ID)",
      "aer",
      {{"severity", "uncorrected_nonfatal"},
       {"device", "0000:01:00.0"},
       {"driver", "nvidia"},
       {"error_type", "Transaction Layer"},
       {"agent", "Requester ID"},
       {"message",
        "nvidia 0000:01:00.0: AER: PCIe Bus Error: severity=Uncorrected (Non-Fatal), type=Transaction "
        "Layer, (Requester ID)"}});
  expect_kernel(
      "pcieport 0000:00:01.0: AER: PCIe Bus Error: severity=Uncorrectable (Fatal), type=Inaccessible, "
      "(Unregistered Agent ID)",
      "aer",
      {{"severity", "uncorrected_fatal"},
       {"device", "0000:00:01.0"},
       {"driver", "pcieport"},
       {"error_type", "Inaccessible"},
       {"agent", "Unregistered Agent ID"},
       {"message",
        "pcieport 0000:00:01.0: AER: PCIe Bus Error: severity=Uncorrectable (Fatal), "
        "type=Inaccessible, (Unregistered Agent ID)"}});
  // 3.x kernels: "id=0018(Receiver ID)"; VMD domains have 5 hex digits.
  expect_kernel(
      "pcieport 0000:00:03.0: PCIe Bus Error: severity=Corrected, type=Physical Layer, id=0018(Receiver ID)", "aer",
      {{"severity", "corrected"},
       {"device", "0000:00:03.0"},
       {"driver", "pcieport"},
       {"error_type", "Physical Layer"},
       {"agent", "Receiver ID"},
       {"message",
        "pcieport 0000:00:03.0: PCIe Bus Error: severity=Corrected, type=Physical Layer, id=0018(Receiver ID)"}});
  CHECK(classify("kernel",
                 "pcieport 10000:e0:06.0: AER: PCIe Bus Error: severity=Corrected, type=Physical Layer, "
                 "(Receiver ID)")
            .fields["device"] == "10000:e0:06.0");
  CHECK(classify("kernel",
                 "[68183.615810] pcieport 0000:00:03.1: PCIe Bus Error: severity=Correctable, type=Data "
                 "Link Layer, (Transmitter ID)")
            .kind == "aer");

  // A "Multiple ... error received" header reports errors beyond the one its detail record
  // describes, or, when the kernel finds no source device ("can't find device of ID..."), all
  // of them: one error report of its own (kernels before 6.x and 6.x wording).
  expect_kernel("pcieport 0000:00:1c.0: AER: Multiple Corrected error received: 0000:00:1c.0", "aer",
                {{"severity", "corrected"},
                 {"device", "0000:00:1c.0"},
                 {"driver", "pcieport"},
                 {"multiple", "true"},
                 {"message", "pcieport 0000:00:1c.0: AER: Multiple Corrected error received: 0000:00:1c.0"}});
  expect_kernel(
      "pcieport 0000:00:01.0: AER: Multiple Uncorrected (Non-Fatal) error received: 0000:01:00.0", "aer",
      {{"severity", "uncorrected_nonfatal"},
       {"device", "0000:00:01.0"},
       {"driver", "pcieport"},
       {"multiple", "true"},
       {"message", "pcieport 0000:00:01.0: AER: Multiple Uncorrected (Non-Fatal) error received: 0000:01:00.0"}});
  expect_kernel(
      "pcieport 0000:00:03.1: AER: Multiple Correctable error message received from 0000:00:00.0", "aer",
      {{"severity", "corrected"},
       {"device", "0000:00:03.1"},
       {"driver", "pcieport"},
       {"multiple", "true"},
       {"message", "pcieport 0000:00:03.1: AER: Multiple Correctable error message received from 0000:00:00.0"}});
  expect_none("kernel", "pcieport 0000:00:03.1: AER: Multiple Unknown error received: 0000:00:00.0");

  // The record's header and detail lines are no events (they count as ignored) ...
  const char* const not_events[] = {
      "pcieport 0000:00:03.1: AER: Correctable error message received from 0000:00:00.0",
      "pcieport 0000:00:1c.5: AER: Corrected error received: 0000:00:1c.5",
      "pcieport 0000:00:01.0: AER: Uncorrected (Fatal) error received: 0000:01:00.0",
      "pcieport 0000:00:1c.0: AER: can't find device of ID00e0",
      "pcieport 0000:00:03.1:   device [1022:1453] error status/mask=00001000/00006000",
      "pcieport 0000:00:03.1:    [12] Timeout               ",
      "pcieport 0000:00:1c.5: AER:   device [8086:9d15] error status/mask=00000001/00002000",
      "pcieport 0000:00:1c.5: AER:    [ 0] RxErr                  (First)",
      "pcieport 0000:00:1c.0: AER: device [8086:a33c] error status/mask=00001000/00002000",
      "pcieport 0000:00:1c.0: AER: [12] Timeout",
      "nvidia 0000:01:00.0:   device [10de:2684] error status/mask=00000001/0000e000",
      "nvidia 0000:01:00.0:    [ 0] RxErr",
      "nvidia 0000:01:00.0: AER:   TLP Header: 4a000001 01000004 00000000 00000000",
  };
  for (const char* line : not_events) expect_none("kernel", line);
  // ... and a parser may ask whether they belong to the record.
  for (std::size_t i = 4; i < std::size(not_events); ++i) {
    INFO(not_events[i]);
    CHECK(prep::continues_incident("aer", not_events[i]));
  }
  CHECK_FALSE(prep::continues_incident("aer", "pcieport 0000:00:1c.5: AER: Corrected error received: 0000:00:1c.5"));
  CHECK_FALSE(prep::continues_incident("xid", "pcieport 0000:00:03.1:    [12] Timeout"));

  // Noise that mentions AER or carries a PCI address.
  expect_none("kernel", "pcieport 0000:00:01.0: AER: enabled with IRQ 120");
  expect_none("kernel", "acpi PNP0A08:29: _OSC: platform does not support [SHPCHotplug AER DPC]");
  expect_none("kernel", "pcieport 0000:00:00.4: PME: Signaling with IRQ 120");
  expect_none("kernel", "mlx5_core 0000:41:00.1: 63.008 Gb/s available PCIe bandwidth (8.0 GT/s PCIe x8 link)");
  expect_none("kernel", "pcieport 0000:00:1c.5: PCIe Bus Error: severity=Unknown, type=Physical Layer, (Receiver ID)");
}

// ---- thermal --------------------------------------------------------------------------------

TEST_CASE("kernel events: CPU and system thermal messages", "[kernel][thermal]") {
  expect_kernel("CPU1: Core temperature above threshold, cpu clock throttled (total events = 1)", "thermal",
                {{"target", "cpu"},
                 {"state", "throttled"},
                 {"cpu", "1"},
                 {"level", "core"},
                 {"message", "CPU1: Core temperature above threshold, cpu clock throttled (total events = 1)"}});
  expect_kernel(
      "mce: CPU4: Package temperature above threshold, cpu clock throttled (total events = 154290)", "thermal",
      {{"target", "cpu"},
       {"state", "throttled"},
       {"cpu", "4"},
       {"level", "package"},
       {"message", "mce: CPU4: Package temperature above threshold, cpu clock throttled (total events = 154290)"}});
  expect_kernel("CPU12: Core temperature is above threshold, cpu clock is throttled (total events = 7)", "thermal",
                {{"target", "cpu"},
                 {"state", "throttled"},
                 {"cpu", "12"},
                 {"level", "core"},
                 {"message", "CPU12: Core temperature is above threshold, cpu clock is throttled (total events = 7)"}});
  expect_kernel("CPU0: Core temperature/speed normal", "thermal",
                {{"target", "cpu"},
                 {"state", "normal"},
                 {"cpu", "0"},
                 {"level", "core"},
                 {"message", "CPU0: Core temperature/speed normal"}});
  expect_kernel("thermal thermal_zone0: critical temperature reached (105 C), shutting down", "thermal",
                {{"target", "system"},
                 {"state", "critical"},
                 {"zone", "thermal_zone0"},
                 {"message", "thermal thermal_zone0: critical temperature reached (105 C), shutting down"}});
  expect_kernel("Critical temperature reached (107 C), shutting down", "thermal",
                {{"target", "system"},
                 {"state", "critical"},
                 {"message", "Critical temperature reached (107 C), shutting down"}});
  expect_kernel(
      "NVRM: GPU 0000:01:00.0: Thermal slowdown engaged", "thermal",
      {{"target", "gpu"}, {"state", "throttled"}, {"message", "NVRM: GPU 0000:01:00.0: Thermal slowdown engaged"}});

  expect_none("kernel", "thermal thermal_zone0: failed to read out thermal zone (-61)");
  expect_none("kernel", "CPU0: Package power limit notification (total events = 1)");
  expect_none("kernel", "CPU: 5 PID: 190097 Comm: tee Tainted: P           OE     5.15.0-136-generic #147-Ubuntu");
  expect_none("kernel", "CPU0: Thermal monitoring enabled (TM1)");
  expect_none("kernel", "intel_rapl_common: Found RAPL domain package");
  expect_none("kernel", "mce: CPU0: Thermal monitoring enabled (TM1)");
  expect_none("thermald", "CPU0: Core temperature above threshold, cpu clock throttled (total events = 1)");
}

// ---- driver, modeset ------------------------------------------------------------------------

TEST_CASE("kernel events: driver load, unload, persistence daemon, reset", "[kernel][driver]") {
  expect_kernel(
      "NVRM: loading NVIDIA UNIX x86_64 Kernel Module  550.144.03  Mon Dec 30 17:44:08 UTC 2024", "driver",
      {{"action", "load"},
       {"version", "550.144.03"},
       {"module", "proprietary"},
       {"message", "NVRM: loading NVIDIA UNIX x86_64 Kernel Module  550.144.03  Mon Dec 30 17:44:08 UTC 2024"}});
  expect_kernel(
      "NVRM: loading NVIDIA UNIX Open Kernel Module for x86_64  550.54.14  Release Build  "
      "(dvs-builder@U16-I3-B03-4-3)  Thu Feb 22 01:25:25 UTC 2024",
      "driver",
      {{"action", "load"},
       {"version", "550.54.14"},
       {"module", "open"},
       {"message",
        "NVRM: loading NVIDIA UNIX Open Kernel Module for x86_64  550.54.14  Release Build  "
        "(dvs-builder@U16-I3-B03-4-3)  Thu Feb 22 01:25:25 UTC 2024"}});
  CHECK(classify("kernel", "NVRM: loading NVIDIA UNIX x86_64 Kernel Module  375.66  Mon May  1 15:29:16 PDT 2017")
            .fields["version"] == "375.66");
  CHECK(classify("kernel", "NVRM: loading NVIDIA UNIX aarch64 Kernel Module  535.129.03  Thu Oct 19 18:42:12 UTC 2023")
            .fields["version"] == "535.129.03");
  expect_kernel(
      "nvidia-nvlink: Unregistered Nvlink Core, major device number 507", "driver",
      {{"action", "unload"}, {"message", "nvidia-nvlink: Unregistered Nvlink Core, major device number 507"}});
  for (const char* ident : {"nvidia-persistenced", "nvidia-persistenced[1234]", "/usr/bin/nvidia-persistenced"}) {
    expect(ident, "Started (1234)", "driver",
           {{"action", "persistenced_start"}, {"pid", "1234"}, {"message", "Started (1234)"}});
  }
  expect("nvidia-persistenced", "Shutdown (1234)", "driver",
         {{"action", "persistenced_stop"}, {"pid", "1234"}, {"message", "Shutdown (1234)"}});
  expect("nvsentinel-gpu-reset", "GPU reset executed: GPU-455d8f70-2051-db6c-0430-ffc457bff834, success: true",
         "driver",
         {{"action", "reset"},
          {"uuid", "GPU-455d8f70-2051-db6c-0430-ffc457bff834"},
          {"success", "true"},
          {"message", "GPU reset executed: GPU-455d8f70-2051-db6c-0430-ffc457bff834, success: true"}});

  expect_none("kernel",
              "nvidia-modeset: Loading NVIDIA Kernel Mode Setting Driver for UNIX platforms  550.144.03  "
              "Mon Dec 30 17:10:10 UTC 2024");
  expect_none("kernel", "nvidia-nvlink: Nvlink Core is being initialized, major device number 507");
  expect_none("kernel", "nvidia: loading out-of-tree module taints kernel.");
  expect_none("kernel", "nvidia-uvm: Loaded the UVM driver, major device number 505.");
  expect_none("nvidia-persistenced", "Verbose syslog connection opened");
  expect_none("nvidia-persistenced", "Now running with user ID 118 and group ID 124");
  expect_none("systemd", "Started NVIDIA Persistence Daemon.");
  expect_none("some-tool", "Started (1234)");
}

TEST_CASE("kernel events: nvidia-modeset errors", "[kernel][modeset]") {
  expect_kernel(
      "nvidia-modeset: ERROR: GPU:0: Failed to query display engine channel state: 0x0000c67e:0:0:0x0000000f",
      "modeset",
      {{"message",
        "nvidia-modeset: ERROR: GPU:0: Failed to query display engine channel state: 0x0000c67e:0:0:0x0000000f"}});
  expect_kernel(
      "nvidia-modeset: ERROR: GPU:1: Error while waiting for GPU progress: 0x0000c67d:0 2:0:4048:4040", "modeset",
      {{"message", "nvidia-modeset: ERROR: GPU:1: Error while waiting for GPU progress: 0x0000c67d:0 2:0:4048:4040"}});
  expect_none("kernel", "nvidia-modeset: Unloading");
  expect_none("kernel", "nvidia-modeset: WARNING: GPU:0: Unable to read EDID for display device DP-0");
}

// ---- oom, segfault --------------------------------------------------------------------------

TEST_CASE("kernel events: OOM kills, once per kill", "[kernel][oom]") {
  expect_kernel(
      "Out of memory: Killed process 48213 (python3) total-vm:98765432kB, anon-rss:61234567kB, "
      "file-rss:1234kB, shmem-rss:0kB, UID:1000 pgtables:123456kB oom_score_adj:0",
      "oom",
      {{"pid", "48213"},
       {"process", "python3"},
       {"scope", "system"},
       {"message",
        "Out of memory: Killed process 48213 (python3) total-vm:98765432kB, anon-rss:61234567kB, "
        "file-rss:1234kB, shmem-rss:0kB, UID:1000 pgtables:123456kB oom_score_adj:0"}});
  expect_kernel(
      "Memory cgroup out of memory: Killed process 7001 (pt_main_thread) total-vm:1000kB, anon-rss:900kB, "
      "file-rss:0kB, shmem-rss:0kB, UID:0 pgtables:10kB oom_score_adj:999",
      "oom",
      {{"pid", "7001"},
       {"process", "pt_main_thread"},
       {"scope", "cgroup"},
       {"message",
        "Memory cgroup out of memory: Killed process 7001 (pt_main_thread) total-vm:1000kB, "
        "anon-rss:900kB, file-rss:0kB, shmem-rss:0kB, UID:0 pgtables:10kB oom_score_adj:999"}});
  CHECK(classify("kernel",
                 "Out of memory (oom_kill_allocating_task): Killed process 99 (java) total-vm:1kB, "
                 "anon-rss:1kB, file-rss:0kB, shmem-rss:0kB")
            .fields["scope"] == "system");
  // Old kernels: "Kill process ... or sacrifice child" then "Killed process ...": one event.
  expect_none("kernel", "Out of memory: Kill process 4321 (python) score 912 or sacrifice child");
  expect_kernel("Killed process 4321 (python) total-vm:23456789kB, anon-rss:15000000kB, file-rss:0kB", "oom",
                {{"pid", "4321"},
                 {"process", "python"},
                 {"message", "Killed process 4321 (python) total-vm:23456789kB, anon-rss:15000000kB, file-rss:0kB"}});
  CHECK(classify("kernel", "Out of memory: Killed process 1 ((sd-pam)) total-vm:1kB, anon-rss:1kB").fields["process"] ==
        "(sd-pam)");
  // The summary line before the kill and the reaper after it are part of the same kill.
  expect_none("kernel",
              "oom-kill:constraint=CONSTRAINT_NONE,nodemask=(null),cpuset=/,mems_allowed=0,global_oom,"
              "task_memcg=/user.slice/user-1000.slice,task=python3,pid=48213,uid=1000");
  expect_none("kernel", "oom_reaper: reaped process 48213 (python3), now anon-rss:0kB, file-rss:0kB, shmem-rss:0kB");
  CHECK(prep::continues_incident("oom", "oom_reaper: reaped process 48213 (python3), now anon-rss:0kB"));
  expect_none("kernel", "python3 invoked oom-killer: gfp_mask=0x140cca(GFP_HIGHUSER_MOVABLE|__GFP_COMP), order=0");
  expect_none("bash", "Out of memory: Killed process 1 (init)");
  expect_none("earlyoom", "Killed process 1234 (python3) with signal 15");
}

TEST_CASE("kernel events: segfaults", "[kernel][segfault]") {
  expect_kernel(
      "python3[12345]: segfault at 0 ip 00007f3a1c2b4d5e sp 00007ffd2b3c4d50 error 4 in "
      "libcuda.so.535.129.03[7f3a1b000000+1e00000]",
      "segfault",
      {{"pid", "12345"},
       {"process", "python3"},
       {"object", "libcuda.so.535.129.03"},
       {"message",
        "python3[12345]: segfault at 0 ip 00007f3a1c2b4d5e sp 00007ffd2b3c4d50 error 4 in "
        "libcuda.so.535.129.03[7f3a1b000000+1e00000]"}});
  expect_kernel(
      "pt_main_thread[2924364]: segfault at 18 ip 00007f00c0ffee00 sp 00007f00deadbe00 error 4 in "
      "libtorch_cuda.so[7f00b0000000+40000000] likely on CPU 12 (core 12, socket 0)",
      "segfault",
      {{"pid", "2924364"},
       {"process", "pt_main_thread"},
       {"object", "libtorch_cuda.so"},
       {"message",
        "pt_main_thread[2924364]: segfault at 18 ip 00007f00c0ffee00 sp 00007f00deadbe00 error 4 in "
        "libtorch_cuda.so[7f00b0000000+40000000] likely on CPU 12 (core 12, socket 0)"}});
  expect_kernel("Web Content[4242]: segfault at 8 ip 0000000000000000 sp 00007ffc error 14", "segfault",
                {{"pid", "4242"},
                 {"process", "Web Content"},
                 {"message", "Web Content[4242]: segfault at 8 ip 0000000000000000 sp 00007ffc error 14"}});
  CHECK(prep::continues_incident("segfault", "Code: 48 8b 07 c3 0f 1f 40 00 <48> 8b 47 08"));
  expect_none("kernel",
              "traps: python3[1234] general protection fault ip:7f3a sp:7ffd error:0 in libc.so.6[7f3a+1000]");
  expect_none("python3", "python3[12345]: segfault at 0 ip 0 sp 0 error 4");
  expect_none("kernel", "[drm] Initialized nvidia-drm 0.0.0 20160202 for 0000:01:00.0 on minor 1");
  expect_none("kernel", "[drm] [nvidia-drm] [GPU ID 0x00000100] Loading driver");
}

// ---- power, lid, suspend, shutdown, boot ----------------------------------------------------

TEST_CASE("system events: AC adapter and lid", "[kernel][power]") {
  expect_kernel("ACPI: AC: AC Adapter [ACAD] (off-line)", "power_source",
                {{"state", "offline"}, {"adapter", "ACAD"}, {"message", "ACPI: AC: AC Adapter [ACAD] (off-line)"}});
  expect_kernel("ACPI: AC Adapter [AC] (on-line)", "power_source",
                {{"state", "online"}, {"adapter", "AC"}, {"message", "ACPI: AC Adapter [AC] (on-line)"}});
  expect_none("kernel", "ACPI: AC: AC Adapter [ACAD] (unknown)");
  expect_none("kernel", "ACPI: Battery Slot [BAT0] (battery present)");
  expect_none("kernel", "ACPI: button: Lid Switch [LID0]");

  expect("systemd-logind", "Lid closed.", "lid", {{"state", "closed"}, {"message", "Lid closed."}});
  expect("systemd-logind[1050]", "Lid opened.", "lid", {{"state", "open"}, {"message", "Lid opened."}});
  expect("", "systemd-logind[960]: Lid closed.", "lid", {{"state", "closed"}, {"message", "Lid closed."}});
  expect_none("systemd-logind", "Ignoring lid switch request, system startup or resume too close.");
  expect_none("systemd-logind", "Watching system buttons on /dev/input/event0 (Lid Switch)");
  expect_none("systemd-logind", "Power key pressed.");
  expect_none("systemd-logind", "  device-enumerator: scanning /sys/bus");
  expect_none("gnome-shell", "Lid closed.");
}

TEST_CASE("system events: suspend and resume at every layer", "[kernel][suspend]") {
  expect("systemd-logind", "The system will suspend now!", "suspend",
         {{"mode", "suspend"}, {"via", "logind"}, {"message", "The system will suspend now!"}});
  expect("systemd-logind", "The system will suspend and later hibernate now!", "suspend",
         {{"mode", "suspend-then-hibernate"},
          {"via", "logind"},
          {"message", "The system will suspend and later hibernate now!"}});
  expect("systemd-sleep[15540]", "Performing sleep operation 'suspend'...", "suspend",
         {{"mode", "suspend"}, {"via", "systemd-sleep"}, {"message", "Performing sleep operation 'suspend'..."}});
  expect("systemd-sleep", "Entering sleep state 'hibernate'...", "suspend",
         {{"mode", "hibernate"}, {"via", "systemd-sleep"}, {"message", "Entering sleep state 'hibernate'..."}});
  expect("systemd-sleep", "Suspending system...", "suspend",
         {{"mode", "suspend"}, {"via", "systemd-sleep"}, {"message", "Suspending system..."}});
  expect_kernel("PM: suspend entry (s2idle)", "suspend",
                {{"mode", "s2idle"}, {"via", "kernel"}, {"message", "PM: suspend entry (s2idle)"}});
  expect_kernel("PM: suspend entry (deep)", "suspend",
                {{"mode", "deep"}, {"via", "kernel"}, {"message", "PM: suspend entry (deep)"}});
  expect_kernel("PM: suspend entry 2019-03-22 08:37:10.312318578 UTC", "suspend",
                {{"via", "kernel"}, {"message", "PM: suspend entry 2019-03-22 08:37:10.312318578 UTC"}});
  expect_kernel("PM: hibernation: hibernation entry", "suspend",
                {{"mode", "hibernate"}, {"via", "kernel"}, {"message", "PM: hibernation: hibernation entry"}});
  expect_kernel("PM: Entering mem sleep", "suspend",
                {{"mode", "mem"}, {"via", "kernel"}, {"message", "PM: Entering mem sleep"}});

  expect_kernel("PM: suspend exit", "resume", {{"via", "kernel"}, {"message", "PM: suspend exit"}});
  expect_kernel("PM: Finishing wakeup.", "resume", {{"via", "kernel"}, {"message", "PM: Finishing wakeup."}});
  expect(
      "systemd-sleep", "System returned from sleep operation 'suspend'.", "resume",
      {{"mode", "suspend"}, {"via", "systemd-sleep"}, {"message", "System returned from sleep operation 'suspend'."}});
  expect("systemd-sleep", "System returned from sleep state.", "resume",
         {{"via", "systemd-sleep"}, {"message", "System returned from sleep state."}});
  expect("systemd-sleep", "System resumed.", "resume", {{"via", "systemd-sleep"}, {"message", "System resumed."}});
  // A failed suspend ends in a resume that says so.
  expect("systemd-sleep", "Failed to put system to sleep. System resumed again: Input/output error", "resume",
         {{"via", "systemd-sleep"},
          {"failed", "true"},
          {"error", "Input/output error"},
          {"message", "Failed to put system to sleep. System resumed again: Input/output error"}});
  expect("systemd-sleep", "Failed to suspend system. System resumed again: Device or resource busy", "resume",
         {{"via", "systemd-sleep"},
          {"failed", "true"},
          {"error", "Device or resource busy"},
          {"message", "Failed to suspend system. System resumed again: Device or resource busy"}});

  expect_kernel("printk: Suspending console(s) (use no_console_suspend to debug)", "suspend",
                {{"via", "kernel"}, {"message", "printk: Suspending console(s) (use no_console_suspend to debug)"}});
  expect("systemd", "Finished NVIDIA system suspend actions.", "suspend",
         {{"mode", "suspend"}, {"via", "systemd"}, {"message", "Finished NVIDIA system suspend actions."}});
  expect("systemd", "Finished NVIDIA system resume actions.", "resume",
         {{"via", "systemd"}, {"message", "Finished NVIDIA system resume actions."}});

  expect_none("systemd-sleep", "Successfully froze unit 'user.slice'.");
  expect_none("systemd-sleep", "[Error] > An error occurred: [Errno 2] No such file or directory");
  expect_none("(system-sleep)", "/usr/lib/systemd/system-sleep/fw-fanctrl-suspend failed with exit status 1.");
  expect_none("systemd", "systemd-suspend.service: Main process exited, code=exited, status=1/FAILURE");
  expect_none("systemd", "nvidia-suspend.service: Succeeded.");
  expect_none("systemd", "Reached target Sleep.");
  expect_none("kernel", "PM: Syncing filesystems ... done.");
  expect_none("kernel", "PM: suspend devices took 0.123 seconds");
  expect_none("kernel", "nvidia 0000:01:00.0: PM: pci_pm_suspend(): nv_pmops_suspend [nvidia] returns -5");
  expect_none("kernel", "nvidia 0000:01:00.0: PM: dpm_run_callback(): pci_pm_suspend returns -5");
  expect_none("kernel", "Filesystems sync: 0.020 seconds");
  expect_none("kernel", "Freezing remaining freezable tasks completed (elapsed 0.001 seconds)");
}

TEST_CASE("system events: shutdown and boot", "[kernel][shutdown]") {
  expect("systemd-logind", "System is powering down.", "shutdown",
         {{"action", "poweroff"}, {"via", "logind"}, {"message", "System is powering down."}});
  expect("systemd-logind", "System is rebooting.", "shutdown",
         {{"action", "reboot"}, {"via", "logind"}, {"message", "System is rebooting."}});
  expect("systemd", "Reached target System Shutdown.", "shutdown",
         {{"via", "systemd"}, {"message", "Reached target System Shutdown."}});
  expect("systemd[1]", "Reached target shutdown.target - System Shutdown.", "shutdown",
         {{"via", "systemd"}, {"message", "Reached target shutdown.target - System Shutdown."}});
  expect("", "systemd[1]: Reached target Shutdown.", "shutdown",
         {{"via", "systemd"}, {"message", "Reached target Shutdown."}});
  expect_kernel("reboot: Power down", "shutdown",
                {{"action", "poweroff"}, {"via", "kernel"}, {"message", "reboot: Power down"}});
  expect_kernel("reboot: Restarting system", "shutdown",
                {{"action", "reboot"}, {"via", "kernel"}, {"message", "reboot: Restarting system"}});
  expect_kernel(
      "Linux version 5.15.0-136-generic (buildd@lcy02-amd64-034) (gcc (Ubuntu 11.4.0-1ubuntu1~22.04) "
      "11.4.0, GNU ld (GNU Binutils for Ubuntu) 2.38) #147-Ubuntu SMP Sat Mar 15 15:53:30 UTC 2025",
      "boot",
      {{"kernel", "5.15.0-136-generic"},
       {"message",
        "Linux version 5.15.0-136-generic (buildd@lcy02-amd64-034) (gcc (Ubuntu "
        "11.4.0-1ubuntu1~22.04) 11.4.0, GNU ld (GNU Binutils for Ubuntu) 2.38) #147-Ubuntu SMP Sat "
        "Mar 15 15:53:30 UTC 2025"}});

  expect_none("systemd-logind", "The system will power off now!");
  expect_none("systemd-logind", "Power key pressed short.");
  expect_none("systemd-logind", "New session 1350 of user ubuntu.");
  expect_none("systemd", "Reached target Swaps.");
  expect_none("systemd", "Stopped target Graphical Interface.");
  expect_none("", "systemd[1]: Reached target Slice Units.");
  expect_none("kernel", "reboot: machine restart requested");
  expect_none("kernel", "Linux version unknown");
  expect_none("bash", "Linux version 6.5.0-14-generic");
}

// ---- noise ----------------------------------------------------------------------------------

TEST_CASE("kernel events: ordinary noise is ignored", "[kernel][negative]") {
  const char* const noise[] = {
      "",
      "   ",
      "[ 4564.303884] ",
      "nvme0: Shutdown timeout set to 8 seconds",
      "nvme nvme0: 16/0/0 default/read/poll queues",
      "usb 1-1: new high-speed USB device number 2 using xhci_hcd",
      "usb 1-2: New USB device found, idVendor=174c, idProduct=2074, bcdDevice= 2.00",
      "ieee80211 phy0: rt2x00queue_flush_queue: Warning - Queue 2 failed to flush",
      "sd 6:0:0:0: [sdc] tag#0 FAILED Result: hostbyte=DID_ERROR driverbyte=DRIVER_SENSE",
      "e1000e: EEE TX LPI TIMER: 00000011",
      "EXT4-fs (nvme0n1p2): re-mounted. Opts: (null). Quota mode: none.",
      "audit: type=1400 audit(1753325017.308:5): apparmor=\"STATUS\" operation=\"profile_load\" "
      "profile=\"unconfined\" name=\"nvidia_modprobe\" pid=1023 comm=\"apparmor_parser\"",
      "Kernel panic - not syncing: Test panic triggered by crash_test module",
      "nvidia-peermem nv_get_p2p_free_callback:127 ERROR detected invalid context, skipping further processing",
      "nvidia-nvswitch0: open (major=508)",
      "nvidia 0000:01:00.0: enabling device (0000 -> 0002)",
      "NVRM: ",
      "NVRM: GPU0 _kgspRpcRecvPoll: GSP RM heartbeat timed out",
      "NVRM: os_schedule: Attempted to yield the CPU while in atomic or interrupt context",
      "Memory cgroup stats for /user.slice:",
      "Mem-Info:",
      "Killed",
      "Linux agpgart interface v0.103",
      "ACPI: PM: Preparing to enter system sleep state S3",
      "thermal LNXTHERM:00: registered as thermal_zone0",
      "CPU0: Intel(R) Xeon(R) Gold 6248 CPU @ 2.50GHz (family: 0x6, model: 0x55, stepping: 0x7)",
      "GPU reset",
      "reboot",
      "message repeated",
      "random[text]: segfault without the kernel shape",
  };
  for (const char* line : noise) {
    expect_none("kernel", line);
    expect_none("", line);
  }
  for (const char* ident :
       {"systemd", "systemd-logind", "systemd-sleep", "upowerd", "nvidia-persistenced", "NetworkManager"}) {
    for (const char* line : noise) expect_none(ident, line);
  }
  // upowerd's usual lines carry no power-source state.
  expect_none("upowerd", "treating change event as add on /sys/devices/pci0000:00/0000:00:14.0/usb3/3-2");
  expect_none("upowerd", "(upowerd:1409): UPower-Linux-WARNING **: energy 32.560000 bigger than full 15.747200");
}

// ---- the Xid catalogue ----------------------------------------------------------------------

TEST_CASE("Xid catalogue: lookups of known and unknown codes", "[kernel][xid-table]") {
  const prep::XidInfo* x79 = prep::find_xid(79);
  REQUIRE(x79 != nullptr);
  CHECK(x79->code == 79);
  CHECK(x79->name == "ROBUST_CHANNEL_GPU_HAS_FALLEN_OFF_THE_BUS");
  CHECK(x79->bucket == "reboot");
  CHECK(x79->nvidia_action == "RESTART_BM");
  CHECK(x79->description == "GPU has fallen off the bus");
  CHECK(prep::find_xid(48)->bucket == "reset_gpu");
  CHECK(prep::find_xid(13)->bucket == "restart_app");
  CHECK(prep::find_xid(43)->bucket == "ignore");
  CHECK(prep::find_xid(54)->bucket == "contact_support");
  CHECK(prep::find_xid(154)->bucket == "unknown");
  CHECK(prep::find_xid(0) == nullptr);
  CHECK(prep::find_xid(-1) == nullptr);
  CHECK(prep::find_xid(173) == nullptr);
  CHECK(prep::find_xid(100000) == nullptr);
  // The codes most seen on real machines are all there.
  for (int code : {8,  13, 31, 32, 38, 43,  44,  45,  48,  61,  62,  63,  64,  68, 69,
                   74, 79, 92, 94, 95, 109, 119, 120, 121, 123, 140, 143, 149, 154}) {
    INFO("Xid " << code);
    const prep::XidInfo* x = prep::find_xid(code);
    REQUIRE(x != nullptr);
    CHECK(x->code == code);
    CHECK_FALSE(x->name.empty());
  }
  const auto all = prep::xid_catalog();
  REQUIRE(all.size() >= 172);
  for (std::size_t i = 1; i < all.size(); ++i) CHECK(all[i - 1].code < all[i].code);
  for (const auto& x : all) {
    INFO("Xid " << x.code);
    CHECK(prep::find_xid(x.code) == &x);
    const std::string b(x.bucket);
    CHECK((b == "restart_app" || b == "reset_gpu" || b == "reboot" || b == "contact_support" || b == "ignore" ||
           b == "unknown"));
  }
}

TEST_CASE("Xid catalogue: the compiled table equals data/nvidia-xid-catalog.tsv", "[kernel][xid-table]") {
  const std::string tsv = read_file(std::string(GPUCOST_SOURCE_DIR) + "/data/nvidia-xid-catalog.tsv");
  REQUIRE_FALSE(tsv.empty());
  const auto table = prep::xid_catalog();
  std::size_t n = 0;
  for (const std::string& line : lines_of(tsv)) {
    if (line.empty() || line[0] == '#' || line.rfind("code\t", 0) == 0) continue;
    std::vector<std::string> cols;
    std::string col;
    std::istringstream cells(line);
    while (std::getline(cells, col, '\t')) cols.push_back(col);
    if (!line.empty() && line.back() == '\t') cols.emplace_back();
    INFO("TSV row: " << line << "  (regenerate with: python3 tools/gen_xid_table.py)");
    REQUIRE(cols.size() == 5);
    REQUIRE(n < table.size());
    const prep::XidInfo& x = table[n];
    CHECK(std::to_string(x.code) == cols[0]);
    CHECK(std::string(x.name) == cols[1]);
    CHECK(std::string(x.bucket) == cols[2]);
    CHECK(std::string(x.nvidia_action) == cols[3]);
    CHECK(std::string(x.description) == cols[4]);
    ++n;
  }
  CHECK(n == table.size());
}

// ---- the shared corpus ----------------------------------------------------------------------

TEST_CASE("kernel events: the corpus kernel logs give the events they contain", "[kernel][corpus]") {
  const std::string dir = std::string(GPUCOST_CORPUS_DIR) + "/logs/";
  // Message = the text after "kernel: " or after the program's "name[pid]: " (a cheap split,
  // enough for these files; the real parsers are tested elsewhere).
  const auto count = [&](const std::string& rel, std::map<std::string, int>& kinds) {
    const std::string text = read_file(dir + rel);
    if (text.empty()) return false;
    for (const std::string& line : lines_of(text)) {
      std::string_view l(line);
      std::string_view ident, msg;
      const std::size_t k = l.find(" kernel: ");
      if (k != std::string_view::npos) {
        ident = "kernel";
        msg = l.substr(k + 9);
      } else {
        const std::size_t c = l.find("]: ");
        if (c == std::string_view::npos) continue;
        const std::size_t sp = l.rfind(' ', c);
        const std::size_t lb = l.rfind('[', c);
        if (sp == std::string_view::npos || lb == std::string_view::npos || lb < sp) continue;
        ident = l.substr(sp + 1, lb - sp - 1);
        msg = l.substr(c + 3);
      }
      gpucost::Event ev;
      if (prep::classify_message(ident, msg, ev)) ++kinds[std::string(ev.kind)];
    }
    return true;
  };
  std::map<std::string, int> kinds;
  if (!count("kernlog/pop3363_aer_correctable.log", kinds)) {
    WARN("corpus not found under " << dir << "; skipped");
    return;
  }
  CHECK(kinds == std::map<std::string, int>{{"aer", 3}});
  kinds.clear();
  REQUIRE(count("journal-text/gsconnect1052_ru_nohost_aer.txt", kinds));
  CHECK(kinds == std::map<std::string, int>{{"aer", 3}});
  kinds.clear();
  REQUIRE(count("journal-text/balena304_aer_short.txt", kinds));
  CHECK(kinds == std::map<std::string, int>{{"aer", 1}});
  kinds.clear();
  REQUIRE(count("kernlog/ubf_gt630_375_xid79_a.log", kinds));
  CHECK(kinds == std::map<std::string, int>{{"xid", 1}, {"gpu_lost", 1}});
  kinds.clear();
  REQUIRE(count("kernlog/pop3590_syslog_nvrm_suspend.log", kinds));
  CHECK(kinds == std::map<std::string, int>{{"suspend", 1}});  // "printk: Suspending console(s)"
  kinds.clear();
  REQUIRE(count("journal-text/bazzite4982_nvidia_sleep_fail.txt", kinds));
  CHECK(kinds == std::map<std::string, int>{{"suspend", 1}, {"resume", 1}});
  kinds.clear();
  REQUIRE(count("journal-text/nobara579_ru_locale_nohost.txt", kinds));
  CHECK(kinds == std::map<std::string, int>{{"suspend", 2}});
  kinds.clear();
  REQUIRE(count("journal-text/sd2346_logind_debug_short.txt", kinds));
  CHECK(kinds.empty());
  REQUIRE(count("journal-text/wez4404_popos_nvidia_suspend.txt", kinds));
  CHECK(kinds == std::map<std::string, int>{{"suspend", 1}});  // "Finished NVIDIA system suspend actions."

  // dmesg --decode --time-format=iso: every Xid line is one xid event, nothing else matches.
  const std::string dmesg = read_file(dir + "dmesg/gpud_xid13_43_decode_iso.txt");
  REQUIRE_FALSE(dmesg.empty());
  int xid_lines = 0, xids = 0, others = 0;
  for (const std::string& line : lines_of(dmesg)) {
    const std::size_t p = line.find("+00:00 ");
    if (p == std::string::npos) continue;
    if (line.find("NVRM: Xid") != std::string::npos) ++xid_lines;
    gpucost::Event ev;
    if (prep::classify_message("", std::string_view(line).substr(p + 7), ev)) (ev.kind == "xid" ? xids : others)++;
  }
  CHECK(xid_lines > 600);
  CHECK(xids == xid_lines);
  CHECK(others == 0);
}
