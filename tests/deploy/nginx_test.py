#!/usr/bin/env python3
"""nginx (Debian) as a reverse proxy in front of two stet-servers, one over
TCP and one over a unix socket, with the configuration of docs/deploy.md:

- client_address() is the address in nginx's X-Forwarded-For only when nginx
  is trusted (a third, untrusted instance sees nginx itself), and a spoofed
  X-Forwarded-For from the client is never believed;
- a cookie signed by one instance verifies on the other (shared --secret);
- a rolling restart (staged stop of one instance, start it again, then the
  other) under a steady client loop loses no request: every request is
  answered, each answer complete.

    nginx_test.py STET_SERVER DEPLOY_MD
"""

import json
import sys
import time

import deploy_lib as d

SECRET = "0123456789abcdef0123456789abcdef"
DRAIN_DELAY_MS = "300"


def main(scratch, stet, doc):
    nginx = d.require("nginx")
    port_a, port_untrusted, port_nginx = d.free_port(), d.free_port(), d.free_port()
    sock_b = scratch.file("b.sock")
    both = {'"$STET_SECRET"': SECRET, "--drain-delay-ms 2000": f"--drain-delay-ms {DRAIN_DELAY_MS}"}
    args_a = d.stet_args(doc, "stet-a", {"127.0.0.1:8081": f"127.0.0.1:{port_a}", **both})
    args_b = d.stet_args(doc, "stet-b", {"/run/stet/b.sock": sock_b, **both})

    def start_a():
        p = scratch.stet(stet, [*args_a, "--no-access-log"], "stet-a")
        d.wait_until(lambda: d.request(port_a, "/-/ready")[0] == 200, "instance a ready")
        return p

    def start_b():
        p = scratch.stet(stet, [*args_b, "--no-access-log"], "stet-b")
        d.wait_until(lambda: d.request(0, "/-/ready", unix=sock_b)[0] == 200, "instance b ready")
        return p

    a, b = start_a(), start_b()
    untrusted = scratch.stet(stet, ["--listen", f"127.0.0.1:{port_untrusted}", "--secret", SECRET, "--no-access-log"],
                             "stet-untrusted")
    d.wait_tcp(port_untrusted, "the untrusted instance", untrusted)

    conf = d.substitute(d.doc_block(doc, "nginx.conf"), {
        "127.0.0.1:8081": f"127.0.0.1:{port_a}", "/run/stet/b.sock": sock_b,
        "127.0.0.1:8080": f"127.0.0.1:{port_nginx}", "/run/stet-nginx": scratch.path})
    # Test-only: one location to an instance that trusts nobody.
    conf = d.substitute(conf, {"        location / {": f"        location /untrusted/ {{ proxy_pass "
                                                      f"http://127.0.0.1:{port_untrusted}/; }}\n        location / {{"})
    with open(scratch.file("nginx.conf"), "w") as f:
        f.write(conf)
    server = scratch.start([nginx, "-p", scratch.path, "-c", scratch.file("nginx.conf"), "-g", "daemon off;"],
                           "nginx-stdout")
    d.wait_tcp(port_nginx, "nginx", server)

    check_client_address(port_nginx)
    check_shared_cookie(port_nginx)
    rolling_restart(port_nginx, a, b, start_a, start_b)


def check_client_address(port):
    host = {"Host": "app.example", "X-Forwarded-For": "198.51.100.7"}  # the client's own claim: never believed
    for prefix in ("/a", "/b"):
        seen = d.get_json(port, prefix + "/-/client.json", headers=host, source="127.0.0.2")
        d.check(seen == {"client": "127.0.0.2", "scheme": "http", "host": "app.example"},
                f"through nginx to {prefix}: {seen}")
    seen = d.get_json(port, "/untrusted/-/client.json", headers=host, source="127.0.0.2")
    d.check(seen["client"] == "127.0.0.1", f"an instance that trusts nobody saw {seen}")


def check_shared_cookie(port):
    status, headers, body = d.request(port, "/a/-/login", "POST", {"Content-Type": "application/json"},
                                      json.dumps({"id": "alice"}))
    d.check(status == 200, f"login through a: {status} {body!r}")
    cookie = headers["set-cookie"].split(";")[0]
    seen = d.get_json(port, "/b/-/actor.json", headers={"Cookie": cookie})
    d.check(seen == {"actor": "alice"}, f"the cookie a signed, read by b: {seen}")
    forged = cookie[:-2] + ("AA" if not cookie.endswith("AA") else "BB")
    seen = d.get_json(port, "/b/-/actor.json", headers={"Cookie": forged})
    d.check(seen == {"actor": None}, f"a forged cookie on b: {seen}")


def rolling_restart(port, a, b, start_a, start_b):
    loop = d.ClientLoop(port)
    loop.start()
    time.sleep(0.5)
    for name, stopping, start in (("a", a, start_a), ("b", b, start_b)):
        code = stopping.stop()
        d.check(code == 0, f"instance {name} exited with {code} after SIGTERM")
        time.sleep(0.3)  # the other instance alone
        start()
        time.sleep(0.3)
    loop.finish("rolling restart through nginx")


if __name__ == "__main__":
    sys.exit(d.run("nginx", lambda scratch: main(scratch, sys.argv[1], sys.argv[2])))
