#!/usr/bin/env python3
"""A stand-in for Prometheus' HTTP API, serving the series of saved query_range answers
(testdata/prometheus-json/) on 127.0.0.1 for tests/prometheus/prometheus_source.sh. It listens on a
free port (written to --port-file) and logs each request's path and query to --log.

GET /api/v1/query_range?query={__name__=~"A|B",label="v",...}&start=S&end=E&step=D evaluates the
selector at S, S+D, ... up to E as Prometheus does: a series has a point at t when it has a sample
in [t - lookback, t] (the latest one); a series without a point is left out. More than
--max-points steps is refused with Prometheus' own error. Labels come back sorted by name, the
JSON compact, values as strings, as Prometheus writes them.

A path prefix /s/<scenario>/ makes the server misbehave:
  503        every request answers 503 with a Prometheus error body (status "error", errorType "unavailable")
  html       a 200 answer that is an HTML page, not JSON (a login proxy in front of the server)
  404        every request answers 404 (a wrong base URL)
  hostile    every request answers 500 with a Prometheus error holding escape sequences and a forged
             "gpucost: error:" line
  warns      a good answer with a warning holding escape sequences and a forged line
  moved      302 to the same request without the prefix, same scheme (a redirect that is followed)
  downgrade  302 to the same request over plain http:// (from https: never followed)
--token T requires "Authorization: Bearer T"; --basic USER:PASSWORD requires that basic auth.
--tls-cert and --tls-key serve https instead of http.
"""
import argparse
import base64
import http.server
import json
import os
import re
import sys
import threading
import urllib.parse

LOCK = threading.Lock()
# A server's text that would retitle the terminal, colour it and print a line of its own.
FORGED = "\x1b]0;owned\x07\x1b[31mred\x1b[0m\ngpucost: error: forged\n"


def load_series(paths):
    """Every series of the saved answers, by its labels, with its samples (ms, text) in time order."""
    series = {}
    decoder = json.JSONDecoder()
    for path in paths:
        with open(path) as f:
            text = f.read()
        pos = 0
        while True:
            while pos < len(text) and text[pos].isspace():
                pos += 1
            if pos >= len(text):
                break
            doc, pos = decoder.raw_decode(text, pos)
            for s in doc["data"]["result"]:
                key = tuple(sorted(s["metric"].items()))
                points = s.get("values") or [s["value"]]
                series.setdefault(key, {}).update({round(float(t) * 1000): v for t, v in points})
    return {k: sorted(v.items()) for k, v in series.items()}


MATCHER = re.compile(r'\s*([A-Za-z_][A-Za-z0-9_]*)\s*(!=|=~|!~|=)\s*"((?:[^"\\]|\\.)*)"\s*')


def parse_selector(query):
    """{m1,m2,...} -> [(label, op, value)]; None when it is not a bare selector."""
    query = query.strip()
    if not (query.startswith("{") and query.endswith("}")):
        return None
    body, out, pos = query[1:-1], [], 0
    while pos < len(body):
        m = MATCHER.match(body, pos)
        if not m:
            return None
        value = m.group(3).encode().decode("unicode_escape")
        out.append((m.group(1), m.group(2), value))
        pos = m.end()
        if pos < len(body):
            if body[pos] != ",":
                return None
            pos += 1
    return out


def matches(labels, matchers):
    d = dict(labels)
    for label, op, value in matchers:
        have = d.get(label, "")
        ok = {"=": have == value, "!=": have != value, "=~": re.fullmatch(value, have) is not None,
              "!~": re.fullmatch(value, have) is None}[op]
        if not ok:
            return False
    return True


def seconds(ms):
    return ms // 1000 if ms % 1000 == 0 else ms / 1000


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    series = {}
    max_points = 11000
    lookback_ms = 300_000
    token = None
    basic = None
    scheme = "http"
    log_path = None

    def log_message(self, fmt, *args):  # quiet: the test reads --log instead
        pass

    def send_body(self, status, body, content_type="application/json"):
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        if status == 401:
            self.send_header("WWW-Authenticate", 'Basic realm="prometheus"')
        self.end_headers()
        self.wfile.write(body)

    def error(self, status, error_type, message):
        body = json.dumps({"status": "error", "errorType": error_type, "error": message}, separators=(",", ":"))
        self.send_body(status, body.encode())

    def authorised(self):
        got = self.headers.get("Authorization", "")
        if self.token is not None:
            return got == f"Bearer {self.token}"
        if self.basic is not None:
            return got == "Basic " + base64.b64encode(self.basic.encode()).decode()
        return True

    def do_GET(self):
        url = urllib.parse.urlsplit(self.path)
        path, scenario = url.path, "plain"
        if path.startswith("/s/"):
            _, _, scenario, rest = path.split("/", 3)
            path = "/" + rest
        if self.log_path:
            with LOCK, open(self.log_path, "a") as log:
                log.write(f"{scenario} {path}?{url.query}\n")
        if scenario == "503":
            return self.error(503, "unavailable", "the query was cancelled: too many concurrent queries")
        if scenario == "hostile":
            return self.error(500, "internal", FORGED)
        if scenario in ("moved", "downgrade"):
            port = self.server.server_address[1]
            scheme = "http" if scenario == "downgrade" else self.scheme
            target = f"{scheme}://127.0.0.1:{port}{path}?{url.query}"
            self.send_response(302)
            self.send_header("Location", target)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return None
        if scenario == "404" or path != "/api/v1/query_range":
            return self.send_body(404, b"404 page not found\n", "text/plain")
        if scenario == "html":
            return self.send_body(200, b"<html><body>Sign in</body></html>", "text/html")
        if not self.authorised():
            return self.send_body(401, b"Unauthorized\n", "text/plain")
        self.warns = scenario == "warns"
        self.query_range(urllib.parse.parse_qs(url.query))

    def query_range(self, q):
        try:
            start = round(float(q["start"][0]) * 1000)
            end = round(float(q["end"][0]) * 1000)
            step = round(float(q["step"][0]) * 1000)
        except (KeyError, ValueError):
            return self.error(400, "bad_data", 'invalid parameter "start", "end" or "step"')
        if step <= 0 or end < start:
            return self.error(400, "bad_data", "end timestamp must not be before start time")
        if (end - start) // step > self.max_points:
            return self.error(400, "bad_data", "exceeded maximum resolution of 11,000 points per timeseries. Try "
                                               "decreasing the query resolution (?step=XX)")
        matchers = parse_selector(q.get("query", [""])[0])
        if matchers is None:
            return self.error(400, "bad_data", "1:1: parse error: unexpected query (the stand-in knows selectors only)")
        result = []
        for labels, samples in self.series.items():
            if not matches(labels, matchers):
                continue
            values, i = [], 0
            for t in range(start, end + 1, step):
                while i < len(samples) and samples[i][0] <= t:
                    i += 1
                if i > 0 and samples[i - 1][0] >= t - self.lookback_ms:
                    values.append([seconds(t), samples[i - 1][1]])
            if values:
                result.append({"metric": dict(labels), "values": values})
        body = {"status": "success", "data": {"resultType": "matrix", "result": result}}
        if self.warns:
            body["warnings"] = [FORGED]
        self.send_body(200, json.dumps(body, separators=(",", ":")).encode())


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--series", nargs="+", required=True, help="saved query_range answers to serve")
    ap.add_argument("--port-file", required=True)
    ap.add_argument("--log")
    ap.add_argument("--max-points", type=int, default=11000)
    ap.add_argument("--lookback-ms", type=int, default=300_000)
    ap.add_argument("--token")
    ap.add_argument("--basic", help="USER:PASSWORD")
    ap.add_argument("--tls-cert")
    ap.add_argument("--tls-key")
    a = ap.parse_args()
    Handler.series = load_series(a.series)
    Handler.max_points, Handler.lookback_ms = a.max_points, a.lookback_ms
    Handler.token, Handler.basic, Handler.log_path = a.token, a.basic, a.log
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    if a.tls_cert:
        import ssl
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(a.tls_cert, a.tls_key)
        server.socket = ctx.wrap_socket(server.socket, server_side=True)
        Handler.scheme = "https"
    tmp = a.port_file + ".tmp"
    with open(tmp, "w") as f:
        f.write(str(server.server_address[1]))
    os.replace(tmp, a.port_file)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
