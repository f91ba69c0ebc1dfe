#!/usr/bin/env python3
"""The providers' price lists from testdata/price-lists/, served on 127.0.0.1 for
tests/prices/offers_update.sh. It listens on a free port (written to --port-file) and logs each
request as "<scenario> <path>" to --log.

Paths: /azure/api/retail/prices (page 1, or page 2 with $skip), /aws/offers/..., /gcp/v1/services/
6F81-5844-456A/skus (the API key in an X-goog-api-key header required, a key= parameter refused;
the key is logged as "key-header <key>"), /ecb/stats/eurofxref/eurofxref-daily.xml.
A prefix /s/<scenario>/ makes the answers of that endpoint misbehave:
  429        the first request of each URL answers 429 with Retry-After: 1, the next ones answer
  500        every request answers 500
  404        every request answers 404
  truncated  the body is cut in half under a Content-Length of the whole (a dropped connection)
  invalid    the body's second half is replaced by text that is not JSON
  hostile    every request answers 500 with escape sequences and a forged "gpucost: error:" line
  redirect   every request answers 302 to the same path without the prefix (another place)
The Azure pages' NextPageLink (https://prices.azure.com:443) is rewritten to this server, with
the scenario prefix kept.
"""
import argparse
import collections
import http.server
import os
import sys
import threading
import urllib.parse

HITS = collections.Counter()
LOCK = threading.Lock()


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    root = "."
    log_path = None

    def log_message(self, fmt, *args):  # quiet: the test reads --log instead
        pass

    def send_body(self, status, body, content_type="application/json", headers=(), declared=None):
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body) if declared is None else declared))
        for k, v in headers:
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(body)
        self.wfile.flush()

    def file(self, *parts):
        path = os.path.join(self.root, *parts)
        if not os.path.isfile(path):
            return None
        with open(path, "rb") as f:
            return f.read()

    def route(self, path, query, prefix):
        if path == "/azure/api/retail/prices":
            page = "page2.json" if "$skip" in query else "page1.json"
            body = self.file("azure", page)
            origin = f"http://127.0.0.1:{self.server.server_address[1]}{prefix}/azure"
            return body.replace(b"https://prices.azure.com:443", origin.encode()), "application/json"
        if path.startswith("/aws/"):
            return self.file("aws", *path[len("/aws/"):].split("/")), "application/json"
        if path == "/gcp/v1/services/6F81-5844-456A/skus":
            key = self.headers.get("X-goog-api-key", "")
            if self.log_path:
                with LOCK, open(self.log_path, "a") as log:
                    log.write(f"key-header {key}\n")
            if not key or "key" in urllib.parse.parse_qs(query):
                return None, None
            return self.file("gcp", "skus-page1.json"), "application/json"
        if path == "/ecb/stats/eurofxref/eurofxref-daily.xml":
            return self.file("ecb", "eurofxref-daily.xml"), "text/xml"
        return None, None

    def do_GET(self):
        url = urllib.parse.urlsplit(self.path)
        path, scenario, prefix = url.path, "plain", ""
        if path.startswith("/s/"):
            _, _, scenario, rest = path.split("/", 3)
            path, prefix = "/" + rest, f"/s/{scenario}"
        with LOCK:
            HITS[(scenario, self.path)] += 1  # per path and query: each page has its own count
            hit = HITS[(scenario, self.path)]
            if self.log_path:
                with open(self.log_path, "a") as log:
                    log.write(f"{scenario} {path}{'?' + url.query if url.query else ''}\n")
        if scenario == "429" and hit == 1:
            return self.send_body(429, b'{"error":"too many requests"}', headers=[("Retry-After", "1")])
        if scenario == "500":
            return self.send_body(500, b"internal error")
        if scenario == "404":
            return self.send_body(404, b"not found")
        if scenario == "hostile":
            body = b"\x1b]0;owned\x07\x1b[31mred\x1b[0m\ngpucost: error: forged\n" + b"x" * 300
            return self.send_body(500, body, "text/plain")
        if scenario == "redirect":
            return self.send_body(302, b"", "text/plain", headers=[("Location", path)])
        body, content_type = self.route(path, url.query, prefix)
        if body is None:
            return self.send_body(404, b"no such fixture: " + path.encode())
        if scenario == "truncated":
            self.close_connection = True
            return self.send_body(200, body[: len(body) // 2], content_type, declared=len(body))
        if scenario == "invalid":
            body = body[: len(body) // 2] + b"<html>this is not JSON</html>"
        return self.send_body(200, body, content_type)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--root", required=True)
    ap.add_argument("--port-file", required=True)
    ap.add_argument("--log")
    a = ap.parse_args()
    Handler.root = a.root
    Handler.log_path = a.log
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
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
