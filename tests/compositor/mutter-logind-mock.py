#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""logind for mutter in the guest, which has no systemd.

python-dbusmock's logind template on the bus in $DBUS_SYSTEM_BUS_ADDRESS,
with one active session SESSION on seat0 for the calling user, plus the
session-control calls the template lacks and mutter's native backend makes:
TakeControl, and TakeDevice, which opens the device node itself and hands
back its fd (logind's answer; mutter cannot open a card it did not take).
Each TakeDevice prints "logind-mock: TakeDevice MAJOR:MINOR /dev/NODE".
Touches READY once the session is on the bus, then serves until killed.

usage: mutter-logind-mock.py SESSION READY
"""
import os
import subprocess
import sys
import time

import dbus

session, ready = sys.argv[1], sys.argv[2]
mock = subprocess.Popen(['/usr/bin/python3', '-m', 'dbusmock', '--system',
                         '--template', 'logind'])
bus = dbus.SystemBus()
for _ in range(300):
    try:
        obj = bus.get_object('org.freedesktop.login1', '/org/freedesktop/login1')
        obj.Introspect(dbus_interface='org.freedesktop.DBus.Introspectable')
        break
    except dbus.exceptions.DBusException:
        time.sleep(0.1)
manager = dbus.Interface(obj, 'org.freedesktop.DBus.Mock')
path = manager.AddSession(session, 'seat0', dbus.UInt32(os.getuid()),
                          'root' if os.getuid() == 0 else 'user', True)

# Runs inside dbusmock, args = (major, minor); the node's name is the
# kernel's (sysfs uevent), as the guest has no /dev/char links.
TAKE_DEVICE = '''
import os
sysdev = "/sys/dev/char/%d:%d/uevent" % (args[0], args[1])
with open(sysdev) as uevent:
    node = "/dev/" + [l.split("=", 1)[1].strip() for l in uevent
                      if l.startswith("DEVNAME=")][0]
fd = os.open(node, os.O_RDWR | os.O_CLOEXEC | os.O_NOCTTY | os.O_NONBLOCK)
print("logind-mock: TakeDevice %d:%d %s" % (args[0], args[1], node), flush=True)
ret = (dbus.types.UnixFd(fd), False)
os.close(fd)
'''
session_mock = dbus.Interface(bus.get_object('org.freedesktop.login1', path),
                              'org.freedesktop.DBus.Mock')
session_mock.AddMethods('org.freedesktop.login1.Session', [
    ('TakeControl', 'b', '', 'print("logind-mock: TakeControl", flush=True)'),
    ('ReleaseControl', '', '', ''),
    ('TakeDevice', 'uu', 'hb', TAKE_DEVICE),
    ('ReleaseDevice', 'uu', '', ''),
    ('PauseDeviceComplete', 'uu', '', ''),
    ('SetType', 's', '', ''),
])
print('logind-mock: session', path, flush=True)
with open(ready, 'w'):
    pass
sys.exit(mock.wait())
