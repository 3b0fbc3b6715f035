#!/usr/bin/env python3
"""Hostile clients where uploads meet file names, limits, errors and each
other: the longest file name twice, one name uploaded more than a thousand
times, error answers that must not tell the server's directory, a refused
multipart body that must leave nothing behind, and racing PUTs of one new
name.

    uploads_test.py STET_SERVER [--only SCENARIO]
"""

import json
import os
import sys
import threading
import time

import hostile_lib as h

LONG_NAME = "n" * 251 + ".txt"  # 255 bytes: NAME_MAX


def multipart(filename, content, boundary="hostileboundary", more=()):
    """(headers, body) of a multipart/form-data upload of one file, or of
    several: `more` lists further (filename, content) pairs."""
    body = b""
    for name, data in [(filename, content), *more]:
        body += (f"--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"{name}\"\r\n"
                 f"Content-Type: application/octet-stream\r\n\r\n").encode() + data + b"\r\n"
    body += f"--{boundary}--\r\n".encode()
    return [("Content-Type", f"multipart/form-data; boundary={boundary}")], body


class Client:
    """One keep-alive connection for many requests."""

    def __init__(self, srv):
        self.srv, self.sock = srv, srv.connect()
        self.reader = h.Reader(self.sock)

    def ask(self, method, path, headers=(), body=b""):
        self.sock.sendall(h.build_request(method, path, self.srv.host_header(), list(headers), body))
        return h.read_response(self.reader)


def send_chunked(sock, body, size=1000):
    """`body` in chunks of `size`; a server that answered early may stop reading."""
    try:
        for at in range(0, len(body), size):
            piece = body[at:at + size]
            sock.sendall(b"%x\r\n" % len(piece) + piece + b"\r\n")
        sock.sendall(b"0\r\n\r\n")
    except (BrokenPipeError, ConnectionResetError):
        pass  # refused before the end: the answer tells


def upload_server(ctx, *args):
    updir = ctx.path("uploads")
    os.mkdir(updir)
    return ctx.server("--upload-dir", updir, *args), updir


def longest_name_twice(ctx):
    """A 255-byte name: PUT twice (201 then 200: replaced), POSTed as a
    multipart file twice (both stored, under two names of at most 255 bytes)."""
    srv, updir = upload_server(ctx)
    c = Client(srv)
    first = c.ask("PUT", f"/upload/{LONG_NAME}", body=b"one")
    second = c.ask("PUT", f"/upload/{LONG_NAME}", body=b"two")
    h.check(first[0] == 201, f"the first PUT of a 255-byte name: {first[0]} {first[2][:160]!r}")
    h.check(second[0] == 200, f"the second PUT of a 255-byte name: {second[0]} {second[2][:160]!r}")
    stored = []
    for i in range(2):
        headers, body = multipart("m" * 251 + ".bin", b"part %d" % i)
        status, _, answer = c.ask("POST", "/upload", headers, body)
        h.check(status == 200, f"multipart upload {i + 1} of a 255-byte file name: {status} {answer[:160]!r}")
        stored.append(json.loads(answer)["parts"][0]["filename"])
    h.check(stored[0] != stored[1], f"two uploads stored under one name {stored[0]!r}")
    h.check(all(len(n.encode()) <= 255 for n in stored), f"a stored name is over 255 bytes: {stored}")
    for name in stored:
        h.check(os.path.exists(os.path.join(updir, name)), f"{name!r} is not in the upload directory")
    srv.assert_serving("after 255-byte names")


def one_name_many_times(ctx):
    """The same file name POSTed 1,100 times: every upload is stored, each
    under its own name."""
    srv, updir = upload_server(ctx, "--no-upload-digest")
    c = Client(srv)
    headers, body = multipart("same.txt", b"x")
    names, failures = set(), []
    for i in range(1100):
        status, _, answer = c.ask("POST", "/upload", headers, body)
        if status != 200:
            failures.append(f"upload {i + 1}: {status} {answer[:200]!r}")
            if len(failures) >= 3:
                break
            continue
        names.add(json.loads(answer)["parts"][0]["filename"])
    h.check(not failures, f"{len(names)} stored, then: {'; '.join(failures)}")
    h.check(len(names) == 1100, f"1,100 uploads stored under {len(names)} names")
    h.check(len(os.listdir(updir)) == 1100, f"{len(os.listdir(updir))} files in the upload directory")
    srv.assert_serving("after 1,100 uploads of one name")


def errors_do_not_tell_the_directory(ctx):
    """Upload errors (a PUT onto a directory, a file name that cannot be made
    unique, a bad multipart body) never put the server's upload directory in
    the answer."""
    srv, updir = upload_server(ctx)
    os.mkdir(os.path.join(updir, "taken"))
    c = Client(srv)
    answers = [("PUT onto a directory", c.ask("PUT", "/upload/taken", body=b"data"))]
    for i in range(2):
        headers, body = multipart("k" * 251 + ".bin", b"data")
        answers.append((f"255-byte multipart name {i + 1}", c.ask("POST", "/upload", headers, body)))
    answers.append(("a broken multipart body", c.ask("POST", "/upload", [("Content-Type", "multipart/form-data; "
                                                                           "boundary=b")], b"--b\r\nnonsense")))
    errors = [(what, status, body) for what, (status, _, body) in answers if status >= 400]
    h.check(errors, f"no upload failed: {[(w, a[0]) for w, a in answers]}")
    leaks = [f"{what} ({status}): {body[:160]!r}" for what, status, body in errors
             if updir.encode() in body or os.path.basename(updir).encode() in body]
    h.check(not leaks, "answers tell the upload directory: " + "; ".join(leaks))
    srv.assert_serving("after upload errors")
    return f"{len(errors)} error answers checked"


def refused_multipart_leaves_nothing(ctx):
    """--max-upload-bytes 4096: multipart bodies over it (with a Content-Length;
    chunked, so the limit is met while streaming; a small first file then a
    big one) get 413 and leave no file in the upload directory."""
    srv, updir = upload_server(ctx, "--max-upload-bytes", 4096)
    headers, body = multipart("big.bin", os.urandom(64 * 1024))
    status, _, answer = srv.request("POST", "/upload", headers, body)
    h.check(status == 413, f"a 64 KiB multipart body with Content-Length: {status} {answer[:200]!r}")
    s = srv.connect()
    two_headers, two = multipart("small.bin", b"s" * 1000, more=[("big.bin", os.urandom(64 * 1024))])
    s.sendall(h.build_request("POST", "/upload", srv.host_header(),
                              two_headers + [("Transfer-Encoding", "chunked")]))
    send_chunked(s, two)
    status, _, answer = h.read_response(h.Reader(s))
    s.close()
    h.check(status == 413, f"a small file then a big one, chunked: {status} {answer[:200]!r}")
    s = srv.connect()
    s.sendall(h.build_request("POST", "/upload", srv.host_header(), headers + [("Transfer-Encoding", "chunked")]))
    send_chunked(s, body)
    status, _, answer = h.read_response(h.Reader(s))
    s.close()
    h.check(status == 413, f"a 64 KiB chunked multipart body: {status} {answer[:200]!r}")
    srv.assert_serving("after refused multipart bodies")
    left = os.listdir(updir)
    h.check(not left, f"a refused upload left files behind: {left[:5]}")


def expect_continue_too_big(ctx):
    """--max-upload-bytes 1000: PUT /upload with Expect: 100-continue and a
    Content-Length of 10 GiB gets 413 at once, never a 100, and nothing is
    stored; a body sent anyway is never taken as the next request."""
    srv, updir = upload_server(ctx, "--max-upload-bytes", 1000)
    s = srv.connect()
    s.sendall(h.build_request("PUT", "/upload/huge", srv.host_header(),
                              [("Content-Length", str(10 << 30)), ("Expect", "100-continue")]))
    reader = h.Reader(s)
    status, _, answer = h.read_response(reader)
    h.check(status == 413, f"a 10 GiB PUT with Expect: 100-continue: {status} {answer[:200]!r}")
    smuggled = h.build_request("PUT", "/upload/smuggled", srv.host_header(), body=b"evil")
    try:
        s.sendall(smuggled)
    except OSError:
        pass  # closed after the 413: as it may
    rest = reader.rest(1.0)
    s.close()
    h.check(b"HTTP/1.1 2" not in rest, f"a body sent after the 413 was taken as a request: {rest[:200]!r}")
    left = os.listdir(updir)
    h.check(not left, f"files stored: {left}")
    srv.assert_serving("after a refused 100-continue upload")


def racing_puts_of_one_name(ctx):
    """8 clients PUT the same new name at once, 10 rounds: at most one
    `201 Created` per name (the others replaced it: 200)."""
    srv, updir = upload_server(ctx)
    problems = []
    for round_ in range(10):
        name = f"race-{round_}"
        clients = [Client(srv) for _ in range(8)]
        heads = [h.build_request("PUT", f"/upload/{name}", srv.host_header(),
                                 [("Content-Length", str(64 * 1024))]) for _ in clients]
        for c, head in zip(clients, heads):
            c.sock.sendall(head)
        time.sleep(0.1)  # makes the race likely, not certain: the assertion holds either way
        # The heads are in: every sink was made while the name was new.
        barrier = threading.Barrier(len(clients))
        statuses = []

        def finish(c):
            barrier.wait(5)
            c.sock.sendall(os.urandom(64 * 1024))
            statuses.append(h.read_response(c.reader)[0])
        threads = [threading.Thread(target=finish, args=(c,), daemon=True) for c in clients]
        for t in threads:
            t.start()
        for t in threads:
            t.join(15)
        created = statuses.count(201)
        if created > 1 or len(statuses) != len(clients) or any(s not in (200, 201) for s in statuses):
            problems.append(f"{name}: {sorted(statuses)}")
        for c in clients:
            c.sock.close()
    h.check(not problems, "more than one 201 Created for one name: " + "; ".join(problems))
    srv.assert_serving("after racing PUTs")


if __name__ == "__main__":
    sys.exit(h.run_group("uploads", [longest_name_twice, one_name_many_times, errors_do_not_tell_the_directory,
                                     refused_multipart_leaves_nothing, expect_continue_too_big,
                                     racing_puts_of_one_name]))
