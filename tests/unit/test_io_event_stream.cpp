// The gpucost.events writer and reader: deterministic lines, escaping, a lossless round trip.
#include "support.hpp"

#include <gpucost/io/event_stream.hpp>
#include <gpucost/io/json_out.hpp>

#include <simdjson.h>

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>
#include <string>

using namespace gpucost;

namespace {

// Runs `fn(FILE*)` with a memory stream and returns what it wrote.
template <typename Fn>
std::string capture(Fn fn) {
  char* data = nullptr;
  std::size_t size = 0;
  std::FILE* f = open_memstream(&data, &size);
  fn(f);
  std::fclose(f);
  std::string out(data, size);
  std::free(data);
  return out;
}

Event sample_event() {
  Event ev;
  ev.ts_ns = 1718194938123000000;
  ev.source = "query-csv";
  ev.host = "node \"7\"";
  ev.gpu = 3;
  ev.kind = "sample";
  ev.set(Metric::power_w, 245.32, "245.32");
  ev.set(Metric::sm_pct, 98);
  ev.set(Metric::temp_c, 0.1 + 0.2);  // not representable as typed: shortest round trip
  ev.fields.push_back(Field{"name", "NVIDIA A100\tSXM", false, false});
  ev.fields.push_back(Field{"ecc.mode.current", "Enabled", false, true});
  ev.fields.push_back(Field{"encoder.stats.sessionCount", "0", true, true});
  return ev;
}

}  // namespace

TEST_CASE("io::EventWriter: one JSON line per event, metrics in table order, extras grouped", "[io]") {
  const std::string out = capture([](std::FILE* f) {
    io::EventWriter w(f, io::StreamFormat::jsonl);
    w.on_event(sample_event());
    w.flush();
  });
  CHECK(out ==
        "{\"type\":\"event\",\"ts_ns\":1718194938123000000,\"source\":\"query-csv\",\"host\":\"node \\\"7\\\"\","
        "\"gpu\":3,\"kind\":\"sample\",\"power_w\":245.32,\"temp_c\":0.30000000000000004,\"sm_pct\":98,"
        "\"name\":\"NVIDIA "
        "A100\\tSXM\",\"extra\":{\"ecc.mode.current\":\"Enabled\",\"encoder.stats.sessionCount\":0}}\n");
}

TEST_CASE("io::EventWriter: TSV ends each row with the fields that have no column, as key=value pairs", "[io][tsv]") {
  Event xid;
  xid.ts_ns = 1718194938000000000;
  xid.source = "syslog";
  xid.host = "box";
  xid.kind = "xid";
  xid.fields.push_back(Field{"code", "79", true, false});
  xid.fields.push_back(Field{"pci", "0000:18:00", false, false});
  xid.fields.push_back(Field{"name", "python", false, false});  // has its own column
  xid.fields.push_back(Field{"bucket", "reboot", false, false});
  xid.fields.push_back(Field{"message", "GPU has fallen off the bus; 100% lost\tnow=1\nnext", false, false});
  xid.fields.push_back(Field{"odd;key=1", "v", false, false});
  const std::string out = capture([&](std::FILE* f) {
    io::EventWriter w(f, io::StreamFormat::tsv);
    w.write_header("UTC", "test");
    w.on_event(xid);
    w.on_event(sample_event());
    w.flush();
  });
  const std::size_t nl = out.find('\n');
  const std::string header = out.substr(0, nl);
  CHECK(header.size() > 6);
  CHECK(header.substr(header.size() - 26) == "process_type\tcommand\textra");
  const std::size_t nl2 = out.find('\n', nl + 1);
  const std::string row = out.substr(nl + 1, nl2 - nl - 1);
  // Every row has as many cells as the header.
  CHECK(std::count(row.begin(), row.end(), '\t') == std::count(header.begin(), header.end(), '\t'));
  CHECK(row.substr(row.rfind('\t') + 1) ==
        "code=79;pci=0000:18:00;bucket=reboot;message=GPU has fallen off the bus%3B 100%25 lost%09now=1%0Anext;"
        "odd%3Bkey%3D1=v");
  CHECK(row.find("\tpython\t") != std::string::npos);  // name stays in its column
  // Columns gpucost does not model (JSON's "extra" object) are extra.NAME.
  const std::string row2 = out.substr(nl2 + 1, out.size() - nl2 - 2);
  CHECK(row2.substr(row2.rfind('\t') + 1) == "extra.ecc.mode.current=Enabled;extra.encoder.stats.sessionCount=0");
  CHECK(row2.find("NVIDIA A100 SXM") != std::string::npos);  // a tab in a column's cell: a space, as before
}

TEST_CASE("io::EventWriter: header, summary with counts and zone", "[io]") {
  InputStats st;
  st.path = "a.log";
  st.format = Format::dmon;
  st.lines = 12;
  st.events = 9;
  st.ignored = 2;
  st.malformed = 1;
  st.time_basis = TimeBasis::local;
  st.examples.push_back(MalformedExample{7, "bad", "x\x01y"});
  const std::string out = capture([&](std::FILE* f) {
    io::EventWriter w(f, io::StreamFormat::jsonl);
    w.write_header("Europe/Berlin", "9.9");
    w.write_summary({st});
    w.flush();
  });
  CHECK(out.find("{\"type\":\"header\",\"schema\":\"gpucost.events\",\"version\":1,") == 0);
  CHECK(out.find("\"lines\":12,\"events\":9,\"ignored\":2,\"malformed\":1") != std::string::npos);
  CHECK(out.find("\"excerpt\":\"x\\u0001y\"") != std::string::npos);
  CHECK(out.find("\"tz\":\"Europe/Berlin\"}\n") != std::string::npos);
}

TEST_CASE("io::read_event_stream: the writer's output reads back to the same events", "[io]") {
  const std::string text = capture([](std::FILE* f) {
    io::EventWriter w(f, io::StreamFormat::jsonl);
    w.write_header("UTC", "test");
    Event ev = sample_event();
    w.on_event(ev);
    ev.gpu = -1;
    ev.ts_ns = -5;  // before the epoch: still an integer
    w.on_event(ev);
    w.write_summary({});
    w.flush();
  });
  auto reader = io::LineReader::from_string(text);
  test::CollectingSink sink;
  InputStats st;
  REQUIRE(io::read_event_stream(*reader, sink, st));
  CHECK(st.lines == 4);
  CHECK(st.events == 2);
  CHECK(st.ignored == 2);  // header and summary
  CHECK(st.malformed == 0);
  REQUIRE(sink.events.size() == 2);
  const auto& e = sink.events[0];
  CHECK(e.ts_ns == 1718194938123000000);
  CHECK(e.host == "node \"7\"");
  CHECK(e.gpu == 3);
  CHECK(e.metric("power_w") == Approx(245.32).epsilon(0));
  CHECK(e.metric("temp_c") == 0.1 + 0.2);
  CHECK(e.fields.at("name") == "NVIDIA A100\tSXM");
  CHECK(sink.events[1].gpu == -1);
  CHECK(sink.events[1].ts_ns == -5);
}

namespace {

/// `lines`, then one good event: the stream reads on to that event and accounts for every line.
void check_event_after(const std::string& lines) {
  auto reader =
      io::LineReader::from_string(lines + "\n{\"type\":\"event\",\"ts_ns\":1,\"kind\":\"xid\",\"code\":79}\n");
  test::CollectingSink sink;
  InputStats st;
  REQUIRE(io::read_event_stream(*reader, sink, st));
  CHECK(st.events == 1);
  CHECK(st.lines == st.events + st.ignored + st.malformed);
}

}  // namespace

TEST_CASE("io::read_event_stream: bad lines are counted, a wrong version is an error", "[io]") {
  SECTION("malformed lines") {
    auto reader = io::LineReader::from_string(
        "{\"type\":\"header\",\"schema\":\"gpucost.events\",\"version\":1}\n"
        "{\"type\":\"event\",\"ts_ns\":\"soon\",\"source\":\"dmon\"}\n"
        "not json\n"
        "\n"
        "{\"type\":\"event\",\"ts_ns\":1,\"source\":\"dmon\",\"host\":\"h\",\"gpu\":0,\"kind\":\"sample\",\"power_w\":"
        "5}\n");
    test::CollectingSink sink;
    InputStats st;
    REQUIRE(io::read_event_stream(*reader, sink, st));
    CHECK(st.lines == 5);
    CHECK(st.malformed == 2);
    CHECK(st.ignored == 2);
    CHECK(st.events == 1);
    CHECK(st.lines == st.events + st.ignored + st.malformed);
    REQUIRE(st.examples.size() == 2);
    CHECK(st.examples[0].line == 2);
    CHECK(st.examples[0].reason == "ts_ns is not an integer");
  }
  SECTION("an event without kind or ts_ns is malformed, never the previous record's (found by fuzzing extract)") {
    auto reader = io::LineReader::from_string(
        "{\"type\":\"header\",\"schema\":\"gpucost.events\",\"version\":1}\n"
        "{\"type\":\"event\",\"ts_ns\":1,\"kind\":\"xid\",\"code\":79}\n"
        "{\"type\":\"event\",\"ts_ns\":2,\"code\":13}\n"
        "{\"type\":\"event\",\"kind\":\"sample\",\"power_w\":5}\n");
    test::CollectingSink sink;
    InputStats st;
    REQUIRE(io::read_event_stream(*reader, sink, st));
    CHECK(st.events == 1);
    CHECK(st.malformed == 2);
    REQUIRE(st.examples.size() == 2);
    CHECK(st.examples[0].reason == "an event without kind");
    CHECK(st.examples[1].reason == "an event without ts_ns");
    REQUIRE(sink.events.size() == 1);
    CHECK(sink.events[0].kind == "xid");
  }
  SECTION("a summary broken inside an input's fingerprint is skipped, never read on (found by fuzzing)") {
    // simdjson abandons its iterator on a broken document; reading on dereferenced a null parser.
    const char* broken[] = {
        R"({"type":"summary","inputs":[{"format":"dmon","fingerprint":{"drivers":["535" "x"],"cuda":[]}}]})",
        R"({"type":"summary","inputs":[{"format":"dmon","fingerprint":{"drivers":["535",]}},{"format":"syslog"}]})",
        R"({"type":"summary","inputs":[{"format":"dmon","fingerprint":{"gpu_count":-}},{"format":"syslog"}]})",
        R"({"type":"summary","inputs":[{"format":"dmon","fingerprint":{"drivers" "535"}}, 3 4]})",
        R"({"type":"summary","inputs":[{"format":"dmon"} {"format":"syslog"}]})",
        R"({"type":"summary","inputs":[{"path":"a","kind":"trace_launch","rank":1})",  // cut short
        R"({"type":"summary","inputs":[{"path":"a":null,"kind":"trace_launch","rank":1})",
        R"({"type":"summary","inputs":[{"format":"dmon","fingerprint":{"drivers":["535")",
    };
    for (const char* summary : broken) {
      CAPTURE(summary);
      check_event_after(std::string("{\"type\":\"header\",\"schema\":\"gpucost.events\",\"version\":1}\n") + summary);
    }
  }
  SECTION("a header broken after its version is read up to there, never on (found by fuzzing)") {
    // Reading host_basis after a tz that broke the document dereferenced simdjson's null parser.
    const char* broken[] = {
        R"({"type":"header","schema":"gpucost.events","version":1,"tz":"UTC" "x","host_basis":"logs"})",
        R"({"type":"header","schema":"gpucost.events","version":1,"tz":"UTC","host_basis":})",
        R"({"type":"header","schema":"gpucost.events","version":1,"generator":"gpucost":"UTC","tz":"UTC"})",
        R"({"type":"header","schema":"gpucost.events","version":1,"host_basis":"logs",})",
        R"({"type":"header","schema":"gpucost.events","version":1,"x":[1,}],"tz":"UTC"})",
    };
    for (const char* header : broken) {
      CAPTURE(header);
      check_event_after(header);
    }
  }
  SECTION("version 2 is refused with a hint") {
    auto reader = io::LineReader::from_string("{\"type\":\"header\",\"schema\":\"gpucost.events\",\"version\":2}\n");
    test::CollectingSink sink;
    InputStats st;
    const Status s = io::read_event_stream(*reader, sink, st);
    REQUIRE_FALSE(s);
    CHECK(s.error().kind == ErrorKind::schema);
    CHECK(s.error().hint.find("gpucost prep") != std::string::npos);
  }
}

TEST_CASE("io::EventWriter: a byte that needs escaping is found at any place of a text of any length", "[io]") {
  // The writer tests texts by words (8 and 16 bytes, overlapping at the end): each length up to
  // 40 with one such byte at each place must come out as append_json_string writes it.
  for (const char special : {'"', '\\', '\n', '\x1f', '\x01', '\xc3', '\x7f'}) {
    for (std::size_t n = 0; n <= 40; ++n) {
      for (std::size_t at = 0; at <= n; ++at) {  // at == n: no special byte
        std::string value(n, 'a');
        if (at < n) value[at] = special;
        Event ev;
        ev.source = "s";
        ev.kind = "k";
        ev.fields.push_back(Field{"v", value, false, false});
        const std::string out = capture([&](std::FILE* f) {
          io::EventWriter w(f, io::StreamFormat::jsonl);
          w.on_event(ev);
          w.flush();
        });
        std::string expected;
        io::append_json_string(expected, value);
        INFO("length " << n << ", special byte at " << at);
        CHECK(out.find(",\"v\":" + expected + "}") != std::string::npos);
      }
    }
  }
}

TEST_CASE("io::append_json_string: escapes and invalid UTF-8", "[io]") {
  std::string out;
  io::append_json_string(out, "a\"b\\c\nd\x7f \xc3\xa9 \xff end");
  CHECK(out == "\"a\\\"b\\\\c\\nd\x7f \xc3\xa9 \xef\xbf\xbd end\"");
}

TEST_CASE("io::JsonWriter: separators, nesting, lines of their own, unknown values as null", "[io]") {
  std::string b;
  io::JsonWriter w(b);
  w.object().key("rank").integer(0).key("trace").str("a \"b\".json").key("share").num(0.25);
  w.key("none").num(std::optional<double>()).key("nan").num(std::nan("")).key("empty").str_or_null("");
  w.text_if("left_out", "").text_if("kept", "x").key("held").boolean(true);
  w.line("  ").key("list").array();
  for (int i = 0; i < 2; ++i) w.line("    ").item().object().key("i").integer(i).close();
  w.close("\n  ").key("tail").array().item().str("a").item().str("b").close().close("\n");
  CHECK(b ==
        "{\"rank\": 0, \"trace\": \"a \\\"b\\\".json\", \"share\": 0.25, \"none\": null, \"nan\": null, "
        "\"empty\": null, \"kept\": \"x\", \"held\": true,\n  \"list\": [\n    {\"i\": 0},\n    {\"i\": 1}\n  ], "
        "\"tail\": [\"a\", \"b\"]\n}");
  // The document parses back as the same values.
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  REQUIRE(parser.parse(b).get(doc) == simdjson::SUCCESS);
  std::int64_t second = -1;
  REQUIRE(doc["list"].at(1)["i"].get_int64().get(second) == simdjson::SUCCESS);
  CHECK(second == 1);
}

TEST_CASE("io::JsonWriter: the compact layout, a layout changed midway, a number's own text", "[io]") {
  using Layout = io::JsonWriter::Layout;
  std::string b;
  io::JsonWriter w(b, Layout::compact);
  w.object().key("gpu").integer(0).key("ratio").number_text("1.50e3").key("list").array();
  w.item().str("a").item().null().close();
  w.layout(Layout::spaced).key("share").num(0.5).layout(Layout::compact).key("n").count(7);
  w.line("  ").key("on_a_line").boolean(false).close("\n");
  CHECK(b == "{\"gpu\":0,\"ratio\":1.50e3,\"list\":[\"a\",null], \"share\": 0.5,\"n\":7,\n  \"on_a_line\":false\n}");
  simdjson::dom::parser parser;
  double ratio = 0;
  REQUIRE(parser.parse(b)["ratio"].get_double().get(ratio) == simdjson::SUCCESS);
  CHECK(ratio == 1500.0);
}

TEST_CASE("io::append_json_number: integers plain, others shortest, non-finite null", "[io]") {
  std::string out;
  io::append_json_number(out, 250.0);
  out += ' ';
  io::append_json_number(out, 245.32);
  out += ' ';
  io::append_json_number(out, -0.000125);
  out += ' ';
  io::append_json_number(out, std::numeric_limits<double>::quiet_NaN());
  CHECK(out == "250 245.32 -0.000125 null");
}

TEST_CASE("io::append_json_number: beyond 64 bits no plain integer (found by fuzzing)", "[io][fuzz]") {
  // A sum of squares of absurd clock readings; its shortest form was 22 plain digits, which
  // simdjson refuses as an integer too large, so extract wrote a document it could not read.
  std::string out;
  io::append_json_number(out, 1362420080179214811136.0);
  CHECK(out == "1.3624200801792148e+21");
  out.clear();
  io::append_json_number(out, -1e19);
  CHECK(out == "-1e+19");
  out.clear();
  io::append_json_number(out, 1718194938000000000.0);  // shortest as before: scientific is shorter
  CHECK(out == "1.718194938e+18");
  simdjson::dom::parser parser;
  double back = 0;
  CHECK(parser.parse(std::string("[1.3624200801792148e+21]")).at(0).get_double().get(back) == simdjson::SUCCESS);
  CHECK(back == 1362420080179214811136.0);
}
