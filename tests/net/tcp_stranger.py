#!/usr/bin/env python3
"""tcp_stranger.py — knock at ranks' tcp ports without the job key.

usage: tcp_stranger.py HOST:PORT...

For each port: random garbage, a big burst of garbage, hellos that are
well formed but carry a wrong key (one followed by a frame that looks like
a message), a hello of the wrong version, hellos naming impossible ranks,
a client that sends half a hello and then waits past the handshake
deadline, many garbage connections at once, and a connection closed
without a word (the one kind a rank does not count: it is what a peer
abandoning its side of a connect race looks like).

Prints "expect N" per port: how many rejections that rank must count.
"""
import os
import socket
import struct
import sys
import time

MAGIC = 0x43545A55
VERSION = 1
HELLO = 1


def hello(rank, key, version=VERSION, kind=HELLO):
    return struct.pack("<IHHiI16s", MAGIC, version, kind, rank, 0, key)


def connect(addr):
    host, port = addr.rsplit(":", 1)
    s = socket.create_connection((host, int(port)), timeout=5)
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return s


def send_and_close(addr, data, linger=0.05):
    s = connect(addr)
    try:
        s.sendall(data)
    except OSError:
        pass                    # the rank may close on us mid-way: that is the point
    time.sleep(linger)
    s.close()


def fake_record():
    # A frame {length, header length, kind} and an EAGER header from "rank 0"
    # carrying 64 bytes: what a forged message would look like.
    hdr = struct.pack("<BBHiIi", 1, 0, 0, 7, 0, 0)
    payload = b"forged!!" * 8
    return struct.pack("<IHH", len(hdr) + len(payload), len(hdr), 1) + hdr + payload


def attack(addr):
    expect = 0
    send_and_close(addr, os.urandom(4096)); expect += 1
    send_and_close(addr, os.urandom(1 << 20)); expect += 1
    send_and_close(addr, hello(0, os.urandom(16))); expect += 1
    send_and_close(addr, hello(1, os.urandom(16)) + fake_record() * 10, linger=0.2); expect += 1
    send_and_close(addr, hello(0, os.urandom(16), version=99)); expect += 1
    send_and_close(addr, hello(-1, os.urandom(16))); expect += 1
    send_and_close(addr, hello(1 << 30, os.urandom(16))); expect += 1
    send_and_close(addr, b"GET / HTTP/1.0\r\n\r\n"); expect += 1
    # Silent after half a hello: dropped at the handshake deadline (2 s).
    slow = connect(addr)
    slow.sendall(hello(0, os.urandom(16))[:10])
    # Twenty at once.
    crowd = [connect(addr) for _ in range(20)]
    for s in crowd:
        try:
            s.sendall(os.urandom(64))
        except OSError:
            pass
    expect += len(crowd)
    # A connection closed without a word (not counted).
    connect(addr).close()
    time.sleep(2.6)
    try:
        slow.sendall(b"x" * 22)   # too late: the rank has dropped it
    except OSError:
        pass
    expect += 1
    for s in crowd:
        s.close()
    slow.close()
    return expect


def main():
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    for addr in sys.argv[1:]:
        n = attack(addr)
        print("expect %d %s" % (n, addr), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
