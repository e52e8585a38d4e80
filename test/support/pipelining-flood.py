#!/usr/bin/env python3
# A client Node cannot be: N connections with a 4 KB receive buffer (so the
# answers they never read pile up in the server, not in the kernel), each
# writing W reads' worth (64 KB each) of one pipelined request, GAP seconds
# apart, then holding the connections open HOLD seconds without reading.
# Prints one JSON line: connections made, bytes sent. Loopback only.
import json, socket, sys, time

port, n, writes, gap, hold = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4]), float(sys.argv[5])
request = sys.argv[6].encode('latin1').decode('unicode_escape').encode('latin1')
chunk = request * (65_520 // len(request))
sockets, sent = [], 0
for _ in range(n):
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    try:
        s.connect(('127.0.0.1', port))
        s.setblocking(False)
        sockets.append(s)
    except OSError:
        pass
for _ in range(writes):
    for s in sockets:
        try:
            sent += s.send(chunk)
        except OSError:
            pass
    time.sleep(gap)
time.sleep(hold)
for s in sockets:
    s.close()
print(json.dumps({'connections': len(sockets), 'sent': sent}), flush=True)
