#!/usr/bin/env python3
"""stet-server over HTTPS with Debian's own TLS clients: curl --cacert and
openssl s_client against --tls-cert/--tls-key, ALPN h2-only refused, SIGHUP
reloading the certificate (and keeping it when the new files are bad),
--proxy-protocol on the HTTPS listener too, and the command line's TLS errors.

    tls_smoke.py STET_SERVER SELF_SIGNED_CERT_SH

Certificates are made at test time (scripts/self-signed-cert.sh) in a
temporary directory. The server is stopped by its own PID. Every wait is
bounded.
"""

import json
import os
import shutil
import signal
import socket
import ssl
import subprocess
import sys
import tempfile
import time

from smoke import Failure, check, free_port, make_cert, wait_for_log  # beside this file

START_SECONDS = 15


def listening(port):
    try:
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
        return True
    except OSError:
        return False


class Server:
    def __init__(self, binary, cert, key, log, extra=()):
        for _ in range(3):
            self.port, self.tls_port = free_port(), free_port()
            self.log = open(log, "w")
            self.proc = subprocess.Popen([binary, "--port", str(self.port), "--tls-port", str(self.tls_port),
                                          "--tls-cert", cert, "--tls-key", key, "--no-access-log", *extra],
                                         stdout=subprocess.DEVNULL, stderr=self.log)
            deadline = time.monotonic() + START_SECONDS
            while time.monotonic() < deadline and self.proc.poll() is None:
                if listening(self.port) and listening(self.tls_port):
                    return
                time.sleep(0.05)
            self.stop()
        raise Failure("stet-server did not start listening")

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.log.close()


def curl(url, ca, *extra):
    return subprocess.run(["curl", "-sS", "--max-time", "10", "--cacert", ca, *extra, url], capture_output=True,
                          text=True, timeout=20)


def s_client(port, *extra):
    return subprocess.run(["openssl", "s_client", "-connect", f"127.0.0.1:{port}", "-servername", "localhost",
                           *extra], input="", capture_output=True, text=True, timeout=20)


def served_subject(port):
    out = s_client(port)
    for line in out.stdout.splitlines():
        if line.startswith("subject="):
            return line
    return out.stdout + out.stderr


def https_get(port, ca, target, header=b""):
    """GET `target` over HTTPS on 127.0.0.1:`port`, `header` sent first on the
    raw socket (a PROXY header); the body, or the exception's text."""
    context = ssl.create_default_context(cafile=ca)
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=10) as raw:
            raw.sendall(header)
            with context.wrap_socket(raw, server_hostname="localhost") as tls:
                tls.sendall(f"GET {target} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n".encode())
                answer = b""
                while chunk := tls.recv(65536):
                    answer += chunk
        return answer.partition(b"\r\n\r\n")[2].decode()
    except (OSError, ssl.SSLError) as e:
        return f"failed: {e!r}"


def run_proxy_protocol(binary, cert, key, work):
    """--proxy-protocol covers the --tls-port listener: a balancer's header
    before the ClientHello is taken, a client without one is refused."""
    server = Server(binary, cert, key, os.path.join(work, "proxied.log"), ["--proxy-protocol"])
    try:
        body = https_get(server.tls_port, cert, "/-/client.json", b"PROXY TCP4 198.51.100.7 127.0.0.1 51000 443\r\n")
        check(body.startswith("{") and json.loads(body)["client"] == "198.51.100.7",
              f"https behind a PROXY header: {body}")
        body = https_get(server.tls_port, cert, "/-/client.json")
        check(body.startswith("failed"), f"https without a PROXY header was served: {body}")
        with socket.create_connection(("127.0.0.1", server.port), timeout=10) as raw:
            raw.sendall(b"GET /plaintext HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            try:
                answer = raw.recv(65536)
            except ConnectionResetError:  # closed with the request unread
                answer = b""
            check(answer == b"", f"http without a PROXY header was served: {answer!r}")
        check(server.proc.poll() is None, "stet-server exited")
    finally:
        server.stop()


def run(binary, script, work):
    first = os.path.join(work, "first")
    cert, key = make_cert(script, first, "localhost")
    log = os.path.join(work, "server.log")
    # The listener reads fixed paths; reloads copy new files over them.
    live_cert, live_key = os.path.join(work, "live.pem"), os.path.join(work, "live.key")
    shutil.copy(cert, live_cert)
    shutil.copy(key, live_key)
    server = Server(binary, live_cert, live_key, log)
    try:
        out = curl(f"https://localhost:{server.tls_port}/plaintext", cert,
                   "--resolve", f"localhost:{server.tls_port}:127.0.0.1", "--http1.1")
        check(out.returncode == 0 and out.stdout == "Hello, World!", f"curl over https: {out}")
        out = curl(f"https://127.0.0.1:{server.tls_port}/-/metrics", cert)
        check('stet_tls_handshakes_total{kind="full"}' in out.stdout, f"metrics over https: {out.stderr}")
        out = curl(f"http://127.0.0.1:{server.port}/plaintext", cert)
        check(out.stdout == "Hello, World!", f"the plain listener: {out}")
        check(wait_for_log(log, f"stet-server: listening on http://127.0.0.1:{server.port}/\n"
                                f"stet-server: listening on https://127.0.0.1:{server.tls_port}/\n"),
              "the listening lines do not name http:// and https://")

        out = s_client(server.tls_port, "-alpn", "http/1.1")
        check("ALPN protocol: http/1.1" in out.stdout, f"s_client ALPN http/1.1: {out.stdout}")
        check("TLSv1.3" in out.stdout, f"s_client protocol: {out.stdout}")
        out = s_client(server.tls_port, "-alpn", "h2")
        check(out.returncode != 0 and "no application protocol" in out.stderr, f"s_client h2 only: {out}")
        check("CN = localhost" in served_subject(server.tls_port), "first certificate")

        # SIGHUP with a new certificate: new handshakes see it.
        cert2, key2 = make_cert(script, os.path.join(work, "second"), "renewed.localhost")
        shutil.copy(cert2, live_cert)
        shutil.copy(key2, live_key)
        server.proc.send_signal(signal.SIGHUP)
        check(wait_for_log(log, "TLS certificate and key files reloaded"), "SIGHUP reload not reported")
        check("CN = renewed.localhost" in served_subject(server.tls_port), "certificate after SIGHUP")

        # SIGHUP with a key that does not match: an error naming the file, the old certificate stays.
        shutil.copy(key, live_key)
        server.proc.send_signal(signal.SIGHUP)
        check(wait_for_log(log, "live.key: does not match the certificate"), "failed reload not reported")
        check("CN = renewed.localhost" in served_subject(server.tls_port), "certificate after a failed reload")
        out = curl(f"https://127.0.0.1:{server.tls_port}/plaintext", cert2, "-k")
        check(out.stdout == "Hello, World!", f"served after a failed reload: {out}")
        check(server.proc.poll() is None, "stet-server exited")
    finally:
        server.stop()

    run_proxy_protocol(binary, cert, key, work)

    # A bad certificate at start: exit 1 with the file and the reason, never an abort.
    out = subprocess.run([binary, "--port", str(free_port()), "--tls-port", str(free_port()), "--tls-cert",
                          os.path.join(work, "absent.pem"), "--tls-key", key], capture_output=True, text=True,
                         timeout=20)
    check(out.returncode == 1 and "absent.pem: No such file or directory" in out.stderr, f"bad --tls-cert: {out}")
    out = subprocess.run([binary, "--tls-cert", cert], capture_output=True, text=True, timeout=20)
    check(out.returncode == 2 and "--tls-cert and --tls-key go together" in out.stderr, f"--tls-cert alone: {out}")


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    work = tempfile.mkdtemp(prefix="stet-tls-smoke-")
    try:
        run(sys.argv[1], sys.argv[2], work)
    except Failure as e:
        sys.exit(f"tls smoke: FAILED: {e}")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print("tls smoke: ok")


if __name__ == "__main__":
    main()
