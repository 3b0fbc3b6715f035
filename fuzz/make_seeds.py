#!/usr/bin/env python3
"""Writes the seed corpora in fuzz/corpus/<target>/ (committed; rerun after
editing). Seeds are named by what they hold, so a crash found from one is easy
to place. The request-path and chunked targets read a split plan first (see
fuzz/support/splits.hpp): b"\\x00" means "one piece", b"\\x01\\x00" "one byte
at a time". Inputs that once crashed a target are kept next to the seeds as
crash-<what> files; this script never removes them."""

import gzip
import pathlib
import zlib

HERE = pathlib.Path(__file__).resolve().parent
ONE_PIECE = b"\x00"
BYTEWISE = b"\x01\x00"
SEVEN = b"\x01\x06"


def get(target, extra=b""):
    return b"GET " + target + b" HTTP/1.1\r\nHost: 127.0.0.1\r\n" + extra + b"\r\n"


def post(target, body, extra=b""):
    return (b"POST " + target + b" HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: " +
            str(len(body)).encode() + b"\r\n" + extra + b"\r\n" + body)


def chunk(data):
    return b"%x\r\n" % len(data) + data + b"\r\n"


CHUNKED_POST = b"POST /echo HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n"


def with_field(line):
    return b"GET /plaintext HTTP/1.1\r\nHost: a\r\n" + line + b"\r\n\r\n"


def post_with(fields, body):
    return b"POST /echo HTTP/1.1\r\nHost: a\r\n" + fields + b"\r\n" + body


# tests/integration/bad_input_test.cpp, case for case.
BAD = {
    "MissingVersion": b"GET /plaintext\r\nHost: a\r\n\r\n",
    "TrailingGarbageAfterVersion": b"GET /plaintext HTTP/1.1 x\r\nHost: a\r\n\r\n",
    "SpaceInTarget": b"GET /plain text HTTP/1.1\r\nHost: a\r\n\r\n",
    "RelativeTarget": b"GET plaintext HTTP/1.1\r\nHost: a\r\n\r\n",
    "EncodedNulInPath": b"GET /plain%00text HTTP/1.1\r\nHost: a\r\n\r\n",
    "MalformedEscapeInPath": b"GET /plain%zztext HTTP/1.1\r\nHost: a\r\n\r\n",
    "BareLfLineEnds": b"GET /plaintext HTTP/1.1\nHost: a\n\n",
    "UnknownMethod": b"FROB /plaintext HTTP/1.1\r\nHost: a\r\n\r\n",
    "LowercaseMethod": b"get /plaintext HTTP/1.1\r\nHost: a\r\n\r\n",
    "Http20": b"GET /plaintext HTTP/2.0\r\nHost: a\r\n\r\n",
    "Http31": b"GET /plaintext HTTP/3.1\r\nHost: a\r\n\r\n",
    "MissingHost": b"GET /plaintext HTTP/1.1\r\n\r\n",
    "TwoHosts": b"GET /plaintext HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n",
    "TwoIdenticalHosts": b"GET /plaintext HTTP/1.1\r\nHost: a\r\nHost: a\r\n\r\n",
    "HostWithSpace": b"GET /plaintext HTTP/1.1\r\nHost: a b\r\n\r\n",
    "HostWithUserinfo": b"GET /plaintext HTTP/1.1\r\nHost: user@a\r\n\r\n",
    "HostWithNonNumericPort": b"GET /plaintext HTTP/1.1\r\nHost: a:80x\r\n\r\n",
    "AbsoluteFormWithoutHost": b"GET http://a/plaintext HTTP/1.1\r\n\r\n",
    "NulInFieldValue": with_field(b"X-A: b\0c"),
    "BareCrInFieldValue": with_field(b"X-A: b\rc"),
    "NulInFieldName": with_field(b"X-\0A: b"),
    "FieldWithoutColon": with_field(b"NoColon"),
    "WhitespaceBeforeColon": with_field(b"X-A : b"),
    "SpaceInFieldName": with_field(b"X A: b"),
    "EmptyFieldName": with_field(b": b"),
    "WhitespaceBeforeColonInContentLength": post_with(b"Content-Length : 3\r\n", b"abc"),
    "ContentLengthAndTransferEncoding":
        post_with(b"Content-Length: 3\r\nTransfer-Encoding: chunked\r\n", b"3\r\nabc\r\n0\r\n\r\n"),
    "TransferEncodingAndContentLength":
        post_with(b"Transfer-Encoding: chunked\r\nContent-Length: 3\r\n", b"3\r\nabc\r\n0\r\n\r\n"),
    "DuplicateContentLength": post_with(b"Content-Length: 3\r\nContent-Length: 3\r\n", b"abc"),
    "DifferingContentLengths": post_with(b"Content-Length: 3\r\nContent-Length: 4\r\n", b"abcd"),
    "ContentLengthList": post_with(b"Content-Length: 3, 4\r\n", b"abcd"),
    "NonNumericContentLength": post_with(b"Content-Length: abc\r\n", b"abc"),
    "NegativeContentLength": post_with(b"Content-Length: -1\r\n", b"abc"),
    "SignedContentLength": post_with(b"Content-Length: +3\r\n", b"abc"),
    "OverflowingContentLength": post_with(b"Content-Length: 99999999999999999999999\r\n", b"abc"),
    "NonHexChunkSize": CHUNKED_POST + b"zz\r\nabc\r\n0\r\n\r\n",
    "NegativeChunkSize": CHUNKED_POST + b"-1\r\nabc\r\n0\r\n\r\n",
    "OverflowingChunkSize": CHUNKED_POST + b"fffffffffffffffffff\r\nabc\r\n0\r\n\r\n",
    "SpaceBeforeChunkSize": CHUNKED_POST + b" 3\r\nabc\r\n0\r\n\r\n",
    "ChunkLongerThanItsSize": CHUNKED_POST + b"3\r\nabcX\r\n0\r\n\r\n",
    "ChunkWithoutCrlf": CHUNKED_POST + b"3\r\nabc0\r\n\r\n",
    "ChunkExtensionWithoutValue": CHUNKED_POST + b"3;a=;b\r\nabc\r\n0\r\n\r\n",
    "ChunkExtensionWithoutName": CHUNKED_POST + b"3;a=b;;c\r\nabc\r\n0\r\n\r\n",
    "ChunkExtensionUnterminatedQuote": CHUNKED_POST + b"3;a=\"b\r\nabc\r\n0\r\n\r\n",
    "ChunkExtensionControlByte": CHUNKED_POST + b"3;a=\"b\x7f\"\r\nabc\r\n0\r\n\r\n",
    "TransferEncodingNotEndingInChunked": post_with(b"Transfer-Encoding: gzip\r\n", b"abc"),
    "ChunkedNotLast": post_with(b"Transfer-Encoding: chunked, gzip\r\n", b"3\r\nabc\r\n0\r\n\r\n"),
    "ChunkedTwice": post_with(b"Transfer-Encoding: chunked, chunked\r\n", b"3\r\nabc\r\n0\r\n\r\n"),
    "IdentityTransferEncoding": post_with(b"Transfer-Encoding: identity\r\n", b"abc"),
    "UnknownCodingBeforeChunked": post_with(b"Transfer-Encoding: gzip, chunked\r\n", b"3\r\nabc\r\n0\r\n\r\n"),
    "UnknownCodingInSeparateField":
        post_with(b"Transfer-Encoding: gzip\r\nTransfer-Encoding: chunked\r\n", b"3\r\nabc\r\n0\r\n\r\n"),
    "TransferEncodingInHttp10": b"POST /echo HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n",
    "WhitespaceBeforeColonInTransferEncoding":
        post_with(b"Transfer-Encoding : chunked\r\nContent-Length: 3\r\n", b"3\r\nabc\r\n0\r\n\r\n"),
    # Found by fuzzing.
    "BareCrEndsHead": b"GET /plaintext HTTP/1.1\r\nHost: a\r\n\rX",
    "BareCrEndsTrailers": CHUNKED_POST + b"3\r\nabc\r\n0\r\n\rX",
    "BareLfAfterRequestLine": b"GET /plaintext HTTP/1.1\nHost: a\r\n\r\n",
    "BareLfEndsHead": b"GET /plaintext HTTP/1.1\r\nHost: a\r\n\n",
    "BareLfEndsTrailers": CHUNKED_POST + b"3\r\nabc\r\n0\r\n\n",
}

GOOD = {
    "plaintext": get(b"/plaintext"),
    "head_plaintext": b"HEAD /plaintext HTTP/1.1\r\nHost: a\r\n\r\n",
    "http10": b"GET /plaintext HTTP/1.0\r\n\r\n",
    "http10_keep_alive": b"GET /plaintext HTTP/1.0\r\nConnection: keep-alive\r\n\r\n" + get(b"/plaintext"),
    "http12": b"GET /plaintext HTTP/1.2\r\nHost: a\r\n\r\n",
    "connection_close": get(b"/plaintext", b"Connection: close\r\n") + get(b"/plaintext"),
    "connection_close_tab": get(b"/plaintext", b"Connection: close\t\r\n") + get(b"/plaintext"),
    "connection_keep_alive_close": get(b"/plaintext", b"Connection: keep-alive,\tCLOSE\r\n") + get(b"/plaintext"),
    "connection_closed_token": get(b"/plaintext", b"Connection: closed\r\n") + get(b"/plaintext"),
    "http10_keep_alive_tab": b"GET /plaintext HTTP/1.0\r\nConnection: keep-alive\t\r\n\r\n" + get(b"/plaintext"),
    "upgrade_tab": get(b"/plaintext", b"Connection: upgrade\t\r\nUpgrade: websocket\r\n") + get(b"/plaintext"),
    "absolute_form": b"GET http://a/plaintext HTTP/1.1\r\nHost: a\r\n\r\n",
    "options_star": b"OPTIONS * HTTP/1.1\r\nHost: a\r\n\r\n",
    "options_path": b"OPTIONS /echo HTTP/1.1\r\nHost: a\r\n\r\n",
    "wrong_method": b"DELETE /plaintext HTTP/1.1\r\nHost: a\r\n\r\n",
    "not_found": get(b"/nowhere"),
    "trailing_slash": get(b"/plaintext/"),
    "connect": b"CONNECT a:443 HTTP/1.1\r\nHost: a:443\r\n\r\n",
    "upgrade": get(b"/plaintext", b"Connection: Upgrade\r\nUpgrade: websocket\r\n"),
    "echo": post(b"/echo", b"hello"),
    "echo_empty": post(b"/echo", b""),
    "echo_chunked": CHUNKED_POST + chunk(b"hel") + chunk(b"lo") + b"0\r\n\r\n",
    "echo_chunked_ext_trailer": CHUNKED_POST + b"3;a=b\r\nabc\r\n0\r\nX-T: 1\r\n\r\n",
    "echo_chunked_ext_list": CHUNKED_POST + b"3;a=b;c=d;e\r\nabc\r\n0;f=\"g;h\";i=j\r\n\r\n",
    "expect_continue": post(b"/echo", b"abc", b"Expect: 100-continue\r\n"),
    "expect_continue_404": post(b"/nowhere", b"abc", b"Expect: 100-continue\r\n"),
    "expect_other": post(b"/echo", b"abc", b"Expect: something\r\n"),
    "json": post(b"/json", b'{"a":[1,2.5,"x",null,true],"b":{"c":"\\u00e9"}}', b"Content-Type: application/json\r\n"),
    "json_bad": post(b"/json", b'{"a":', b"Content-Type: application/json\r\n"),
    "form": post(b"/form", b"a=1&b=2+3&c=%41&a=4", b"Content-Type: application/x-www-form-urlencoded\r\n"),
    "form_wrong_type": post(b"/form", b"a=1", b"Content-Type: text/plain\r\n"),
    "query": get(b"/query?a=1&b=%20x&a=2&c&=d&e=f+g"),
    "cookies": get(b"/cookies", b"Cookie: a=1; b=\"2\"; c=3; a=4\r\n"),
    "signed_cookie": get(b"/cookies", b"Cookie: actor=ZnV6eg.AAAA\r\n"),
    "login": get(b"/login"),
    "header": get(b"/header", b"X-A: value\r\n"),
    "user": get(b"/users/42"),
    "user_negative": get(b"/users/-9223372036854775808"),
    "user_overflow": get(b"/users/9223372036854775808"),
    "user_not_int": get(b"/users/abc"),
    "user_post": get(b"/users/7/posts/hello%20world"),
    "files": get(b"/files/a/b%2Fc/d"),
    "stream": get(b"/stream?rows=50"),
    "stream_head": b"HEAD /stream?rows=5 HTTP/1.1\r\nHost: a\r\n\r\n",
    "static_index": get(b"/static/"),
    "static_prefix_redirect": get(b"/static"),
    "static_file": get(b"/static/a.txt"),
    "static_css": get(b"/static/sub/b.css"),
    "static_big": get(b"/static/big.bin"),
    "static_range": get(b"/static/big.bin", b"Range: bytes=10-20\r\n"),
    "static_range_suffix": get(b"/static/a.txt", b"Range: bytes=-5\r\n"),
    "static_range_bad": get(b"/static/a.txt", b"Range: bytes=50-10\r\n"),
    "static_if_none_match": get(b"/static/a.txt", b"If-None-Match: \"x\", *\r\n"),
    "static_if_modified_since": get(b"/static/a.txt", b"If-Modified-Since: Sun, 06 Nov 1994 08:49:37 GMT\r\n"),
    "static_hash": get(b"/static/a.txt?_hash=abc"),
    "static_hidden": get(b"/static/.hidden"),
    "static_dotdot": get(b"/static/../etc/passwd"),
    "static_encoded_dotdot": get(b"/static/%2e%2e/%2e%2e/etc/passwd"),
    "static_encoded_slash": get(b"/static/sub%2fb.css"),
    "static_head": b"HEAD /static/big.bin HTTP/1.1\r\nHost: a\r\n\r\n",
    "pipelined": get(b"/plaintext") + post(b"/echo", b"abc") + get(b"/users/1") + get(b"/static/a.txt") +
                 get(b"/stream?rows=3") + get(b"/query?x=1"),
    "pipelined_heads": b"".join(b"HEAD /plaintext HTTP/1.1\r\nHost: a\r\n\r\n" for _ in range(4)) + get(b"/plaintext"),
    "pipelined_many": get(b"/plaintext") * 40,
}

REQUEST_PATH = {}
for name, raw in GOOD.items():
    REQUEST_PATH["good_" + name] = ONE_PIECE + raw
for name, raw in BAD.items():
    # As in the test: a good request pipelined behind must not be answered.
    REQUEST_PATH["bad_" + name] = ONE_PIECE + raw + get(b"/plaintext")
REQUEST_PATH["split_bytewise_pipelined"] = BYTEWISE + GOOD["pipelined"]
REQUEST_PATH["split_bytewise_chunked"] = BYTEWISE + GOOD["echo_chunked"]
REQUEST_PATH["split_sevens_continue"] = SEVEN + GOOD["expect_continue"]

CHUNKED = {
    "one_chunk": chunk(b"hello") + b"0\r\n\r\n",
    "two_chunks": chunk(b"hel") + chunk(b"lo") + b"0\r\n\r\n",
    "empty": b"0\r\n\r\n",
    "extensions": b"3;name=value;x\r\nabc\r\n0;last\r\n\r\n",
    "quoted_extension": b'3;name="a b"\r\nabc\r\n0\r\n\r\n',
    "extension_token_list": b"3;a=b;c=d\r\nabc\r\n2;a=b;c\r\nde\r\n0;x=y;z;w=v\r\n\r\n",
    "extension_mixed_list": b'3;a="x;y";b=c;d\r\nabc\r\n0;e=f;g=""\r\n\r\n',
    "extension_bytewise_list": b"3;a=b;c=d;e\r\nabc\r\n0\r\n\r\n",
    "bad_extension_empty_value": b"3;a=;b\r\nabc\r\n0\r\n\r\n",
    "bad_extension_empty_name": b"3;a=b;;c\r\nabc\r\n0\r\n\r\n",
    "bad_extension_trailing_semicolon": b"3;a=b;\r\nabc\r\n0\r\n\r\n",
    "bad_extension_quote_in_token": b'3;a=b"c"\r\nabc\r\n0\r\n\r\n',
    "trailers": chunk(b"abc") + b"0\r\nX-Trailer: 1\r\nX-Other: 2\r\n\r\n",
    "uppercase_hex": b"A\r\n0123456789\r\n0\r\n\r\n",
    "leading_zeros": b"0003\r\nabc\r\n0\r\n\r\n",
    "pipelined_after": chunk(b"abc") + b"0\r\n\r\n" + get(b"/next"),
    "pipelined_chunked_twice": chunk(b"abc") + b"0\r\n\r\n" + CHUNKED_POST + chunk(b"de") + b"0\r\n\r\n",
    "over_body_limit": chunk(b"x" * 3000) + chunk(b"y" * 2000) + b"0\r\n\r\n",
    "long_extension": b"3;" + b"e" * 1100 + b"\r\nabc\r\n0\r\n\r\n",
    "long_trailers": chunk(b"a") + b"0\r\n" + b"X: " + b"t" * 1100 + b"\r\n\r\n",
    "bytewise_chunks": chunk(b"hello") + chunk(b"world") + b"0\r\n\r\n",
    "incomplete": b"5\r\nhel",
}
for name in ("NonHexChunkSize", "NegativeChunkSize", "OverflowingChunkSize", "SpaceBeforeChunkSize",
             "ChunkLongerThanItsSize", "ChunkWithoutCrlf"):
    CHUNKED["bad_" + name] = BAD[name][len(CHUNKED_POST):]
CHUNKED = {name: (BYTEWISE if "bytewise" in name else ONE_PIECE) + raw for name, raw in CHUNKED.items()}

PATHS = [b"/", b"/index.html", b"/sub/b.css", b"/sub/", b"/a%20b.txt", b"/caf%C3%A9", b"/.hidden", b"/.well-known/x",
         b"/../etc/passwd", b"/a/../../b", b"/%2e%2e/x", b"/%2E%2e%2fetc", b"/a%2fb", b"/a%5cb", b"/a\\b",
         b"/a%00b", b"/a%0ab", b"/a//b", b"/./a", b"/a/.", b"/%", b"/%4", b"/%zz", b"/" + b"a" * 2100,
         b"//", b"/a/b/c/d/e/f/"]
SAFE_PATH = {}
for i, p in enumerate(PATHS):
    SAFE_PATH["path_%02d" % i] = b"\x00" + p
    SAFE_PATH["path_%02d_dotfiles" % i] = b"\x01" + p

COOKIES = [b"a=1", b"a=1; b=2", b"session=abc.def; theme=dark; lang=en", b'a="quoted"; b=""', b"a=1;;b=2",
           b" a = 1 ; b=2 ", b"bad name=1; ok=2", b"a=\x01; b=2", b"a=x;y", b'a="x"y"', b"a=1; a=2; a=3",
           b"noequals; a=1", b"=v", b"a=\xc3\xa9", b"a=1, b=2", b"__Host-id=1; __Secure-x=2", b""]
COOKIE = {"cookie_%02d" % i: c for i, c in enumerate(COOKIES)}

FORMS = [b"a=1", b"a=1&b=2", b"a=1&a=2&a=3", b"a+b=c+d", b"%41=%42", b"100%", b"%zz=%4", b"a", b"&&a=1&&",
         b"=", b"a==b", b"q=caf%C3%A9", b"x=%00", b"", b"a=1&b&c=&=d"]
FORM = {"form_%02d" % i: f for i, f in enumerate(FORMS)}

METHODS = {"get": 0, "head": 1, "post": 2, "put": 3, "delete": 4, "patch": 5, "options": 6}
ROUTES = [("get", b"/"), ("get", b"/plaintext"), ("post", b"/echo"), ("get", b"/users/me"), ("get", b"/users/42"),
          ("delete", b"/users/-7"), ("get", b"/users/bob/posts/hello"), ("get", b"/users/1/posts/2"),
          ("put", b"/items/ab12"), ("get", b"/items/abc"), ("get", b"/files/a/b/c"), ("get", b"/files/"),
          ("post", b"/files/upload"), ("get", b"/caf%C3%A9/menu"), ("get", b"/caf\xc3\xa9/menu"),
          ("get", b"/dir/"), ("get", b"/dir"), ("get", b"/plaintext/"), ("get", b"/a/1/c/2/e/3"),
          ("get", b"/a/b/c/d/e/f/g/h"), ("get", b"/a/b/c/d/e/f/g/h/i/j"), ("get", b"/api/r10"),
          ("post", b"/api/r10"), ("patch", b"/api/users/18446744073709551615"),
          ("patch", b"/api/users/18446744073709551616"), ("put", b"/plaintext"), ("options", b"/users/1"),
          ("options", b"*"), ("head", b"/users/1"), ("get", b"/users/%31"), ("get", b"/users/%zz"),
          ("get", b"/files/a%2Fb"), ("get", b"/nowhere"), ("get", b"")]
ROUTER = {}
for i, (m, path) in enumerate(ROUTES):
    ROUTER["route_%02d_%s" % (i, m)] = bytes([METHODS[m] | 0x80]) + path
    ROUTER["route_%02d_%s_plain" % (i, m)] = bytes([METHODS[m]]) + path

# forwarded_fuzz: a peer selector (0 trusted IPv4, 1 trusted IPv6, 2 unix, 3 and
# 4 untrusted), then lines whose first byte names the field (F Forwarded,
# X X-Forwarded-For, P X-Forwarded-Proto, H X-Forwarded-Host).
FORWARDED_LINES = {
    "xff_one": b"X198.51.100.7",
    "xff_spoofed": b"X6.6.6.6, 198.51.100.7, 10.0.0.5",
    "xff_all_trusted": b"X10.0.0.3, 10.0.0.4",
    "xff_fields": b"X6.6.6.6\nX198.51.100.7,10.0.0.2\nPhttps\nHshop.example",
    "xff_ports": b"X[2001:db8::7]:4711, 198.51.100.7:80",
    "xff_garbage": b"X198.51.100.7, garbage",
    "xff_aligned": b"X198.51.100.7, 10.0.0.5\nPhttps, http\nHa.example, b.internal",
    "proto_only": b"PHTTPS",
    "fwd_simple": b"Ffor=198.51.100.7;proto=https;host=shop.example",
    "fwd_ipv6": b'Ffor="[2001:db8:cafe::17]:4711";proto=http',
    "fwd_hidden": b"Ffor=_hidden, for=10.0.0.9",
    "fwd_unknown": b'Ffor="unknown:_p";host="a.example:8443"',
    "fwd_chain": b"Ffor=6.6.6.6;host=evil\nFfor=198.51.100.7;host=good, for=10.0.0.4;proto=http",
    "fwd_extensions": b'Ffor=198.51.100.7;by="[2001:db8::1]:80";ext="a\\"b,c";x=y',
    "fwd_ows": b"F for=198.51.100.7 ;\tproto=https ,,for=10.0.0.2 ",
    "fwd_over_xff": b"X203.0.113.1\nFfor=198.51.100.7",
    "fwd_bad_unquoted_v6": b"Ffor=[2001:db8::1]\nX203.0.113.1",
    "fwd_bad_unterminated": b'Ffor="198.51.100.7',
    "fwd_bad_duplicate": b"Ffor=1.2.3.4;for=5.6.7.8",
}
FORWARDED = {}
for name, lines in FORWARDED_LINES.items():
    FORWARDED[name] = b"\x00" + lines
    FORWARDED[name + "_untrusted"] = b"\x03" + lines
FORWARDED["unix_peer"] = b"\x02" + FORWARDED_LINES["xff_fields"]
FORWARDED["ipv6_peer"] = b"\x01" + FORWARDED_LINES["fwd_simple"]


def v2(command, family, body):
    return b"\r\n\r\n\x00\r\nQUIT\n" + bytes([0x20 | command, family]) + len(body).to_bytes(2, "big") + body


INET = bytes([192, 0, 2, 1, 198, 51, 100, 2]) + (56324).to_bytes(2, "big") + (443).to_bytes(2, "big")
INET6 = bytes.fromhex("20010db8000000000000000000000001" "20010db8000000000000000000000002") + b"\x00\x01\xff\xff"
UNIX = b"/run/client.sock".ljust(108, b"\x00") + b"/run/stet.sock".ljust(108, b"\x00")
REQUEST = b"GET / HTTP/1.1\r\nHost: a\r\n\r\n"
PROXY_PROTOCOL = {
    "v1_tcp4": b"PROXY TCP4 192.0.2.1 198.51.100.2 56324 443\r\n" + REQUEST,
    "v1_tcp6": b"PROXY TCP6 2001:db8::1 2001:db8::2 1 65535\r\n" + REQUEST,
    "v1_tcp6_mapped": b"PROXY TCP6 ::ffff:192.0.2.1 ::1 0 80\r\n",
    "v1_unknown": b"PROXY UNKNOWN\r\n" + REQUEST,
    "v1_unknown_addresses": b"PROXY UNKNOWN ffff::1 ffff::2 1 2\r\n",
    "v1_longest": b"PROXY UNKNOWN " + b"x" * 91 + b"\r\n",
    "v2_inet": v2(1, 0x11, INET) + REQUEST,
    "v2_inet6": v2(1, 0x21, INET6),
    "v2_unix": v2(1, 0x31, UNIX),
    "v2_unspec": v2(1, 0x00, b""),
    "v2_local": v2(0, 0x11, INET) + REQUEST,
    "v2_tlvs": v2(1, 0x11, INET + b"\x01\x00\x02h2" + b"\x02\x00\x0bexample.com" + b"\x04\x00\x00"),
    "bad_http": REQUEST,
    "bad_v1_lf": b"PROXY TCP4 192.0.2.1 198.51.100.2 1 2\n",
    "bad_v1_family": b"PROXY TCP4 2001:db8::1 198.51.100.2 1 2\r\n",
    "bad_v2_version": b"\r\n\r\n\x00\r\nQUIT\n\x11\x11\x00\x0c" + INET,
    "bad_v2_dgram": v2(1, 0x12, INET),
    "bad_v2_short": v2(1, 0x21, INET6[:35]),
    "bad_v2_tlv": v2(1, 0x11, INET + b"\x01\x00\x05abc"),
}


def mp_part(headers, data):
    return b"--fz\r\n" + headers + b"\r\n" + data + b"\r\n"


def mp_field(name, value):
    return mp_part(b'Content-Disposition: form-data; name="' + name + b'"\r\n', value)


MP_END = b"--fz--\r\n"
MP_FILE = mp_part(b'Content-Disposition: form-data; name="f"; filename="a.bin"\r\nContent-Type: x/y\r\n',
                  bytes(range(256)) + b"\r\n--f\r\n-\r\r\n--fy\r")
MULTIPART_BODIES = {
    "simple": mp_field(b"a", b"1") + MP_END,
    "several": mp_field(b"title", b"Hello") + mp_field(b"empty", b"") + MP_FILE + mp_field(b"n", b"x\r\ny") + MP_END,
    "preamble_epilogue": b"preamble\r\n" + mp_field(b"a", b"1") + MP_END + b"epilogue --fz\r\n",
    "padding": b"--fz \t\r\n" + b'Content-Disposition: form-data; name=a\r\n\r\n1\r\n--fz--  \r\n',
    "no_parts": MP_END,
    "filename_star": mp_part(b"Content-Disposition: form-data; name=f; filename*=UTF-8''%E2%82%AC%2F..%2Fx.txt\r\n",
                             b"z") + MP_END,
    "filename_paths": mp_part(b'Content-Disposition: form-data; name=f; filename="..\\..\\C:\\x/../.hidden"\r\n',
                              b"z") + MP_END,
    "quoted_escapes": mp_part(b'Content-Disposition: form-data; name="a \\"b\\""; filename="q\\\\r"\r\n', b"")
                      + MP_END,
    "many_parts": b"".join(mp_field(b"f%d" % i, b"v") for i in range(9)) + MP_END,
    "long_header": mp_part(b"Content-Disposition: form-data; name=a\r\nX: " + b"h" * 600 + b"\r\n", b"") + MP_END,
    "long_part": mp_field(b"a", b"d" * 5000) + MP_END,
    "no_name": mp_part(b"Content-Type: text/plain\r\n", b"x") + MP_END,
    "bare_lf": b"--fz\nContent-Disposition: form-data; name=a\n\n1\n--fz--\n",
    "truncated": mp_field(b"a", b"1"),
    "bad_after_boundary": mp_field(b"a", b"1") + b"--fzx\r\n",
}
MULTIPART = {}
for name, body in MULTIPART_BODIES.items():
    MULTIPART[name] = ONE_PIECE + body
    MULTIPART[name + "_bytewise"] = BYTEWISE + body
    MULTIPART[name + "_sevens"] = SEVEN + body


# websocket_frame: byte 0 the setup (1 deflate, 2 small limits, 4 built frames,
# 8 decompressor resets), byte 1 the cut plan's size, the plan, then the
# stream (see fuzz/websocket_frame_fuzz.cpp).
WS_MASK = b"\x37\xfa\x21\x3d"


def ws_frame(first, payload, mask=WS_MASK, form=None):
    n = len(payload)
    bit = 0x80 if mask else 0
    if form == 64 or (form is None and n > 0xffff):
        head = bytes([first, bit | 127]) + n.to_bytes(8, "big")
    elif form == 16 or (form is None and n >= 126):
        head = bytes([first, bit | 126]) + n.to_bytes(2, "big")
    else:
        head = bytes([first, bit | n])
    if not mask:
        return head + payload
    return head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))


def ws_close(code, reason=b""):
    return ws_frame(0x88, code.to_bytes(2, "big") + reason)


def ws(setup, stream, plan=b""):
    return bytes([setup, len(plan)]) + plan + stream


def ws_built(setup, frames, plan=b""):
    spec = b"".join(bytes([first, len(p) if len(p) < 127 else 127]) + (len(p).to_bytes(2, "big") if len(p) >= 127 else b"") + p
                    for first, p in frames)
    return ws(setup | 4, spec, plan)


HELLO_DEFLATED = bytes([0xf2, 0x48, 0xcd, 0xc9, 0xc9, 0x07, 0x00])
WS_FRAGMENTS = (ws_frame(0x01, b"Hel") + ws_frame(0x89, b"ping") + ws_frame(0x00, b"lo, ") +
                ws_frame(0x8a, b"") + ws_frame(0x80, b"world"))
WEBSOCKET_FRAME = {
    "text": ws(0, ws_frame(0x81, b"Hello")),
    "text_bytewise": ws(0, ws_frame(0x81, b"Hello"), b"\x00"),
    "binary_126": ws(0, ws_frame(0x82, bytes(range(126)))),
    "binary_1000_sevens": ws(0, ws_frame(0x82, b"x" * 1000), b"\x06"),
    "every_kind": ws(0, ws_frame(0x81, b"t") + ws_frame(0x82, b"\x00\xff") + ws_frame(0x89, b"p") +
                     ws_frame(0x8a, b"q") + ws_close(1000, b"bye")),
    "fragments_with_controls": ws(0, WS_FRAGMENTS),
    "fragments_with_controls_cut": ws(0, WS_FRAGMENTS, b"\x00\x02\x05"),
    "utf8_split_4byte": ws(0, ws_frame(0x01, b"a\xf0\x9f") + ws_frame(0x80, b"\x98\x80b"), b"\x03"),
    "utf8_invalid_split": ws(0, ws_frame(0x01, b"a\xe2") + ws_frame(0x80, b"(b")),
    "utf8_truncated_end": ws(0, ws_frame(0x81, b"\xe2\x82")),
    "surrogate": ws(0, ws_frame(0x81, b"\xed\xa0\x80")),
    "unmasked": ws(0, ws_frame(0x81, b"Hello", mask=None)),
    "reserved_opcode": ws(0, ws_frame(0x83, b"")),
    "rsv2": ws(0, ws_frame(0xa1, b"x")),
    "long_ping": ws(0, ws_frame(0x89, b"p" * 126)),
    "fragmented_ping": ws(0, ws_frame(0x09, b"")),
    "nonminimal_16": ws(0, ws_frame(0x82, b"abc", form=16)),
    "nonminimal_64": ws(0, ws_frame(0x82, b"abc", form=64)),
    "length_64_head": ws(0, bytes([0x82, 0xff, 0, 0, 0, 1, 0, 0, 0, 0]) + WS_MASK),
    "length_64_top_bit": ws(0, bytes([0x82, 0xff, 0x80, 0, 0, 0, 0, 0, 0, 0]) + WS_MASK),
    "oversize_small": ws(2, ws_frame(0x02, b"x" * 150) + ws_frame(0x80, b"y" * 160)),
    "continuation_first": ws(0, ws_frame(0x80, b"x")),
    "data_inside_fragments": ws(0, ws_frame(0x01, b"a") + ws_frame(0x81, b"b")),
    "close_empty": ws(0, ws_frame(0x88, b"")),
    "close_one_byte": ws(0, ws_frame(0x88, b"\x03")),
    "close_1005": ws(0, ws_close(1005)),
    "close_4999_reason": ws(0, ws_close(4999, b"caf\xc3\xa9")),
    "close_then_junk": ws(0, ws_close(1001) + b"\xff\xff\xff"),
    "deflate_hello": ws(1, ws_frame(0xc1, HELLO_DEFLATED)),
    "deflate_hello_fragmented": ws(1, ws_frame(0x41, HELLO_DEFLATED[:3]) + ws_frame(0x80, HELLO_DEFLATED[3:]), b"\x00"),
    "deflate_takeover": ws(1, ws_frame(0xc1, HELLO_DEFLATED) + ws_frame(0xc1, bytes([0xf2, 0x00, 0x11, 0x00, 0x00]))),
    "deflate_bfinal": ws(1, ws_frame(0xc1, bytes([0xf3, 0x48, 0xcd, 0xc9, 0xc9, 0x07, 0x00, 0x00])) +
                         ws_frame(0xc1, bytes([0xf2, 0x00, 0x11, 0x00, 0x00]))),
    "deflate_stored": ws(9, ws_frame(0xc1, bytes([0x00, 0x05, 0x00, 0xfa, 0xff]) + b"Hello" + b"\x00")),
    "deflate_empty": ws(1, ws_frame(0xc1, b"\x00")),
    "deflate_without_agreement": ws(0, ws_frame(0xc1, HELLO_DEFLATED)),
    "built_simple": ws_built(0, [(0x81, b"one"), (0x82, b"\x00two"), (0x81, b"three" * 40)], b"\x04"),
    "built_fragments": ws_built(0, [(0x01, b"frag"), (0x89, b"ping"), (0x80, b"ment")]),
    "built_deflate": ws_built(1, [(0xc1, b"compressed " * 30), (0xc2, bytes(range(256)) * 2), (0x81, b"plain")],
                              b"\x02\x10"),
    "built_deflate_fragments": ws_built(1, [(0x41, b"first part "), (0x00, b"raw"), (0x80, b"end")]),
    "built_small_limits": ws_built(2, [(0x81, b"a" * 64), (0x81, b"b" * 65), (0x02, b"c" * 150), (0x80, b"d" * 151)]),
    "built_unmasked": bytes([4, 0, 0x81, 0x83]) + b"abc",
}


# server: byte 0 the setup (1 PROXY intake over a socketpair, 2 the server
# catches up after each piece, 4 writes of 7 bytes, 8 blocked writes), byte 1
# the plan's size, then u16 little-endian piece sizes minus one, then the
# payload (see fuzz/server_fuzz.cpp).
def server(setup, payload, plan=()):
    return bytes([setup, len(plan)]) + b"".join(p.to_bytes(2, "little") for p in plan) + payload


def zstd_raw(data, fhd=0x20, window=None):
    """A zstd frame of one raw block: single segment with a 1-byte content
    size by default, or (fhd=0) a window descriptor and no content size."""
    head = b"\x28\xb5\x2f\xfd" + bytes([fhd])
    head += bytes([window]) if window is not None else bytes([len(data)])
    return head + ((len(data) << 3) | 1).to_bytes(3, "little") + data


def gz(data):
    return gzip.compress(data, mtime=0)


def raw_deflate(data, compressor=None):
    c = compressor or zlib.compressobj(6, zlib.DEFLATED, -15)
    out = c.compress(data) + c.flush(zlib.Z_SYNC_FLUSH)
    assert out.endswith(b"\x00\x00\xff\xff")
    return out[:-4]


def upgrade(path, extra=b""):
    return (b"GET " + path + b" HTTP/1.1\r\nHost: a\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n" + extra + b"\r\n")


def request(method, target, body=b"", extra=b""):
    length = b"Content-Length: %d\r\n" % len(body) if body or method in (b"POST", b"PUT") else b""
    return method + b" " + target + b" HTTP/1.1\r\nHost: a\r\n" + length + extra + b"\r\n" + body


SINK_HEAD = b"PUT /sink HTTP/1.1\r\nHost: a\r\nContent-Length: 4\r\n\r\n"
BIG_FRAMES = b"".join(ws_frame(0x82, bytes([i]) * 4000) for i in range(15))  # about 60 KiB, masked
MULTIPART_FORM = mp_field(b"a", b"1") + MP_FILE + MP_END
# Every route kind once, pipelined on one connection.
SERVER_MIX_PARTS = [
    request(b"GET", b"/plaintext"),
    request(b"HEAD", b"/big", extra=b"Accept-Encoding: gzip\r\n"),
    request(b"GET", b"/big", extra=b"Accept-Encoding: br;q=0.5, zstd\r\n"),
    request(b"POST", b"/echo", gz(b"coded " * 40), b"Content-Encoding: gzip\r\nAccept-Encoding: gzip\r\n"),
    request(b"POST", b"/echo", zstd_raw(b"zstd body"), b"Content-Encoding: zstd\r\n"),
    request(b"GET", b"/stream?rows=300", extra=b"Accept-Encoding: br\r\n"),
    b"PUT /sink HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n" + chunk(b"abc") + chunk(b"de") +
    b"0\r\n\r\n",
    request(b"PUT", b"/pause", b"p" * 3000),
    request(b"POST", b"/co", b"coroutine body"),
    request(b"GET", b"/co?n=1", extra=b"Accept-Encoding: zstd\r\n"),
    request(b"POST", b"/form", MULTIPART_FORM, b"Content-Type: multipart/form-data; boundary=fz\r\n"),
    request(b"GET", b"/nowhere"),
    request(b"GET", b"/plaintext", extra=b"Connection: close\r\n"),
]
SERVER_MIX = b"".join(SERVER_MIX_PARTS)
WS_SESSION = (ws_frame(0x81, b"hello") + ws_frame(0x02, b"bi") + ws_frame(0x89, b"p") + ws_frame(0x80, b"nary") +
              ws_frame(0x81, b"echo me " * 10) + ws_close(1000, b"bye"))
TAKEOVER = zlib.compressobj(6, zlib.DEFLATED, -9)
WSZ_SESSION = (ws_frame(0xc1, raw_deflate(b"Hello, deflated world! " * 4)) + ws_frame(0x81, b"plain") +
               ws_frame(0x41, raw_deflate(b"frag")[:2]) + ws_frame(0x80, raw_deflate(b"frag")[2:]) +
               ws_frame(0x81, b"close"))
WSZT_SESSION = (ws_frame(0xc1, raw_deflate(b"takeover " * 20, TAKEOVER)) +
                ws_frame(0xc1, raw_deflate(b"takeover " * 20, TAKEOVER)) + ws_close(1001))
PROXY_V1 = b"PROXY TCP4 192.0.2.1 198.51.100.2 56324 443\r\n"
PROXY_V2 = v2(1, 0x11, INET)
SERVER = {
    "plaintext": server(0, request(b"GET", b"/plaintext")),
    "mix": server(0, SERVER_MIX),
    "mix_caught_up": server(2, SERVER_MIX, (40, 7, 300)),
    "mix_short_writes": server(4 | 8, SERVER_MIX, (99,)),
    "expect_continue": server(2, request(b"PUT", b"/sink", b"body", b"Expect: 100-continue\r\n"), (60,)),
    "co_chunked": server(2, b"POST /co HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n" + chunk(b"x" * 100) +
                         chunk(b"y") + b"0\r\n\r\n", (70, 5)),
    "sink_too_large": server(0, b"PUT /sink HTTP/1.1\r\nHost: a\r\nContent-Length: 999999\r\n\r\nabc"),
    "decode_bomb": server(0, request(b"POST", b"/echo", gz(b"\0" * 100000), b"Content-Encoding: gzip\r\n")),
    "ws": server(0, upgrade(b"/ws") + WS_SESSION),
    "ws_bytewise": server(2, upgrade(b"/ws") + WS_SESSION, (0,)),
    "ws_after_requests": server(2, request(b"GET", b"/plaintext") + request(b"POST", b"/echo", b"abc") +
                                upgrade(b"/ws") + WS_SESSION, (30,)),
    "wsz": server(0, upgrade(b"/wsz", b"Sec-WebSocket-Extensions: permessage-deflate; client_max_window_bits\r\n") +
                  WSZ_SESSION),
    "wszt": server(2, upgrade(b"/wszt", b"Sec-WebSocket-Extensions: permessage-deflate; client_max_window_bits=9, "
                                        b"permessage-deflate\r\n") + WSZT_SESSION, (200, 3)),
    "ws_refused_version": server(0, upgrade(b"/ws").replace(b"Version: 13", b"Version: 8") + b"junk"),
    "proxy_v1": server(1, PROXY_V1 + request(b"GET", b"/plaintext") + request(b"POST", b"/echo", b"x")),
    "proxy_v2_cut": server(3, PROXY_V2 + request(b"GET", b"/big", extra=b"Accept-Encoding: gzip\r\n"), (5, 11, 20)),
    "proxy_v2_ws": server(1, PROXY_V2 + upgrade(b"/wsz", b"Sec-WebSocket-Extensions: permessage-deflate\r\n") +
                          WSZ_SESSION),
    "proxy_bad": server(1, b"PROXY TCP4 nonsense\r\n" + request(b"GET", b"/plaintext")),
    # The PUT's head, then in one later write its 4 body bytes, an upgrade and
    # about 60 KiB of frames: the bytes left over at the upgrade outgrew the
    # session's 32 KiB read block (heap overflow in websocket_connection::start).
    "sink_then_upgrade_60k": server(2, SINK_HEAD + b"body" + upgrade(b"/ws") + BIG_FRAMES,
                                    (len(SINK_HEAD) - 1, 0xffff)),
    "sink_then_upgrade_60k_proxy": server(3, PROXY_V1 + SINK_HEAD + b"body" + upgrade(b"/ws") + BIG_FRAMES,
                                          (len(PROXY_V1) + len(SINK_HEAD) - 1, 0xffff)),
    "echo_then_upgrade_60k": server(0, request(b"POST", b"/echo", b"body") + upgrade(b"/ws") + BIG_FRAMES,
                                    (0xffff,)),
    # The response cache beside compression and validators: a miss, a hit, a
    # HEAD, a gzip variant, a 304 and a range from the same entry.
    "cached": server(2, request(b"GET", b"/cached?n=1") + request(b"GET", b"/cached?n=1&x=2") +
                     request(b"HEAD", b"/cached?n=1") +
                     request(b"GET", b"/cached?n=1", extra=b"Accept-Encoding: gzip\r\n") +
                     request(b"GET", b"/cached?n=1", extra=b'If-None-Match: "x", *\r\n') +
                     request(b"GET", b"/cached?n=1", extra=b"Range: bytes=2-9\r\nAccept-Language: fr\r\n"), (90,)),
    # An event stream, then a request pipelined behind it; fields from the
    # query: line breaks in the data, an id and a name holding them (refused).
    "events": server(2, request(b"GET", b"/events?id=7") + request(b"HEAD", b"/events") +
                     request(b"GET", b"/events?id=a%0Ab") + request(b"GET", b"/plaintext"), (25, 3)),
    "events_fields": server(0, request(b"GET", b"/events?data=a%0Db%0D%0A%0Ac&name=tick&note=x%0Dy") +
                            request(b"GET", b"/events?name=%00&data=") +
                            request(b"GET", b"/events?id=&data=%20lead&note=")),
}
# A byte per read, each route kind on a connection of its own: the target cuts
# an input into at most 256 reads (the last takes the rest), so the whole mix a
# byte at a time would be cut a byte at a time for its first request only.
for i, part in enumerate(SERVER_MIX_PARTS):
    SERVER["bytewise_%02d" % i] = server(2, part, (0,))


# body_decoder: byte 0 the setup (bits 0-1 gzip, br, zstd or a
# Content-Encoding value; 4 round trip; bits 3-5 the limit; 64 two members;
# 128 junk), byte 1 the zstd window log or the cut, then the bytes.
def decoder(coding, payload, limit=5, round_trip=False, two=False, junk=False, byte1=0):
    setup = coding | (limit << 3) | (4 if round_trip else 0) | (64 if two else 0) | (128 if junk else 0)
    return bytes([setup, byte1]) + payload


TEXT = b"The quick brown fox jumps over the lazy dog. " * 30
BODY_DECODER = {
    "gzip_raw": decoder(0, gz(TEXT)),
    "gzip_raw_cut": decoder(0, gz(TEXT), byte1=6),
    "gzip_two_members": decoder(0, gz(b"one") + gz(b"two"), byte1=2),
    "gzip_trailing_junk": decoder(0, gz(b"one") + b"\x00"),
    "gzip_truncated": decoder(0, gz(TEXT)[:-5]),
    "gzip_bomb_small_limit": decoder(0, gz(b"\0" * 200000), limit=3),
    "gzip_round_trip": decoder(0, TEXT, round_trip=True),
    "gzip_round_trip_limit_100": decoder(0, TEXT, limit=2, round_trip=True),
    "gzip_round_trip_two_junk": decoder(0, TEXT, round_trip=True, two=True, junk=True),
    "br_empty": decoder(1, b"\x06"),
    "br_round_trip": decoder(1, TEXT, round_trip=True),
    "br_round_trip_limit_0": decoder(1, b"x", limit=0, round_trip=True),
    "br_round_trip_junk": decoder(1, TEXT, round_trip=True, junk=True),
    "zstd_raw_block": decoder(2, zstd_raw(b"raw block")),
    "zstd_two_frames": decoder(2, zstd_raw(b"one") + zstd_raw(b"two"), byte1=3),
    "zstd_skippable": decoder(2, b"\x50\x2a\x4d\x18\x04\x00\x00\x00skip" + zstd_raw(b"after")),
    "zstd_window_8m": decoder(2, zstd_raw(b"ok", fhd=0, window=0x68)),
    "zstd_window_9m": decoder(2, zstd_raw(b"refused", fhd=0, window=0x69)),
    "zstd_window_16m": decoder(2, zstd_raw(b"refused", fhd=0, window=0x70)),
    "zstd_window_2g": decoder(2, zstd_raw(b"refused", fhd=0, window=0xa8)),
    "zstd_round_trip": decoder(2, TEXT, round_trip=True),
    "zstd_round_trip_window_23": decoder(2, TEXT, round_trip=True, byte1=13),
    "zstd_round_trip_window_24": decoder(2, TEXT, round_trip=True, byte1=14),
    "zstd_round_trip_two": decoder(2, TEXT, round_trip=True, two=True, byte1=1),
    "coding_gzip": decoder(3, b" x-GZIP\t"),
    "coding_list": decoder(3, b"gzip, br"),
    "coding_identity": decoder(3, b"Identity"),
}


# websocket_upgrade: byte 0 the request and route (1 POST, 2 HTTP/1.0, 4
# origins, 8 Origin required, 16 deflate, 32 and 64 no context takeover),
# byte 1 the route's window bits, then "name: value" lines.
def wsu(setup, lines, bits=0x77):
    return bytes([setup, bits]) + b"\n".join(lines)


WSU_BASE = [b"Host: a", b"Upgrade: websocket", b"Connection: Upgrade", b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==",
            b"Sec-WebSocket-Version: 13"]
WEBSOCKET_UPGRADE = {
    "valid": wsu(0, WSU_BASE),
    "post": wsu(1, WSU_BASE),
    "http10": wsu(2, WSU_BASE),
    "lists": wsu(0, [b"Upgrade: h2c, WebSocket", b"Connection: keep-alive", b"Connection: upgrade",
                     b"Sec-WebSocket-Key: AAAAAAAAAAAAAAAAAAAAAQ==", b"Sec-WebSocket-Version: 13"]),
    "two_keys": wsu(0, WSU_BASE + [b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ=="]),
    "bad_key_bits": wsu(0, WSU_BASE[:3] + [b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZR==", WSU_BASE[4]]),
    "two_versions": wsu(0, WSU_BASE + [b"Sec-WebSocket-Version: 8"]),
    "quoted_upgrade": wsu(0, [b'Upgrade: "x, websocket'] + WSU_BASE[2:]),
    "subprotocols": wsu(0, WSU_BASE + [b"Sec-WebSocket-Protocol: mqtt, superchat", b"Sec-WebSocket-Protocol: chat"]),
    "origin_allowed": wsu(4 | 8, WSU_BASE + [b"Origin: HTTPS://EXAMPLE.COM"]),
    "origin_refused": wsu(4, WSU_BASE + [b"Origin: https://evil.example"]),
    "origin_missing_required": wsu(4 | 8, WSU_BASE),
    "deflate_plain": wsu(16, WSU_BASE + [b"Sec-WebSocket-Extensions: permessage-deflate; client_max_window_bits"]),
    "deflate_all": wsu(16 | 32 | 64, WSU_BASE + [
        b"Sec-WebSocket-Extensions: permessage-deflate; server_no_context_takeover; client_no_context_takeover; "
        b"server_max_window_bits=10; client_max_window_bits=12"], 0x25),
    "deflate_quoted": wsu(16, WSU_BASE + [b'Sec-WebSocket-Extensions: permessage-deflate; server_max_window_bits="11"']),
    "deflate_fallbacks": wsu(16, WSU_BASE + [
        b"Sec-WebSocket-Extensions: x-webkit-deflate-frame, permessage-deflate; server_max_window_bits=8, "
        b"permessage-deflate; foo, permessage-deflate; client_max_window_bits=08, permessage-deflate"]),
    "deflate_repeated": wsu(16, WSU_BASE + [
        b"Sec-WebSocket-Extensions: permessage-deflate; server_no_context_takeover; server_no_context_takeover"]),
    "deflate_disabled": wsu(0, WSU_BASE + [b"Sec-WebSocket-Extensions: permessage-deflate"]),
    "deflate_trailing_semicolon": wsu(16, WSU_BASE + [b"Sec-WebSocket-Extensions: permessage-deflate;"]),
}

CONTENT_TYPE = {"ct_%02d" % i: v for i, v in enumerate([
    b"multipart/form-data; boundary=fz",
    b"multipart/form-data; boundary=\"a b:c\"",
    b"Multipart/Form-Data;charset=utf-8;BOUNDARY=----WebKitFormBoundary7MA4YWxkTrZu0gW",
    b"multipart/form-data; boundary=a; boundary=b",
    b"multipart/form-data; boundary=",
    b"multipart/form-data; boundary=\"\"",
    b"multipart/form-data; boundary=\"a\\\"b\"",
    b"multipart/form-data; boundary=" + b"x" * 71,
    b"multipart/form-data; boundary=\"ends with space \"",
    b"multipart/form-data; boundary = spaced ; x=y",
    b"multipart/form-data; boundary=a b",
    b"multipart/form-data; ; ; boundary=ok;",
    b"multipart/mixed; boundary=x",
    b"application/json; charset=utf-8",
    b"application/problem+json",
    b"application/+json",
    b" application/x-www-form-urlencoded ; charset=utf-8",
    b"text/plain",
    b"",
])}

CORS = {
    "exact": b"\x00https://app.example.com,http://127.0.0.1:8080\nContent-Type\nhttps://app.example.com\n"
             b"content-type\nPUT",
    "exact_upper": b"\x08https://app.example.com\nContent-Type, X-A\nHTTPS://APP.EXAMPLE.COM\nx-a, content-type\nPUT",
    "pattern": b"\x01https://*.example.com:8443\nX-Requested-With\nhttps://a.b.example.com:8443\n,,x-requested-with,\nGET",
    "pattern_no_label": b"\x00https://*.example.com\n\nhttps://.example.com\n\nDELETE",
    "any": b"\x04\n*\nhttps://anything.test\nX-Anything, y\nPATCH",
    "any_credentials": b"\x07\n\nhttps://anything.test\nX-A\nOPTIONS",
    "any_credentials_null": b"\x05\n\nnull\n\nput",
    "null": b"\x00null\n\nnull\nbad header\nGET",
    "ipv6": b"\x10http://[::1]:8080\nA\nhttp://[::1]:8080\na\t, b\nDELETE",
    "bad_origin": b"\x00https://example.com/path\n\nhttps://example.com/path\n\nGET",
}

ACCEPT_ENCODING = {"ref_%02d" % i: v for i, v in enumerate([
    b"gzip;q=0.5, br;q=0.8, zstd;q=0.8",
    b"identity;q=0.9, gzip;q=0.8",
    b"*;q=0, identity;q=0",
    b"*;q=0.3, gzip;q=0",
    b"gzip ; Q=1.000 , x-gzip;q=0, br;q=1.",
    b"br;q=0.5;q=1, zstd",
    b"",
    b"GZIP, Br",
])}

CORPORA = {"request_path": REQUEST_PATH, "chunked": CHUNKED, "safe_path": SAFE_PATH, "cookie": COOKIE, "form": FORM,
           "router": ROUTER, "multipart": MULTIPART, "websocket_frame": WEBSOCKET_FRAME, "forwarded": FORWARDED,
           "proxy_protocol": PROXY_PROTOCOL, "server": SERVER, "body_decoder": BODY_DECODER,
           "websocket_upgrade": WEBSOCKET_UPGRADE, "content_type": CONTENT_TYPE, "cors": CORS,
           "accept_encoding": ACCEPT_ENCODING}


def main():
    assert len(BAD) == 58, len(BAD)
    for target, seeds in CORPORA.items():
        directory = HERE / "corpus" / target
        directory.mkdir(parents=True, exist_ok=True)
        for name, data in seeds.items():
            (directory / name).write_bytes(data)


if __name__ == "__main__":
    main()
