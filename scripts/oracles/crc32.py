#!/usr/bin/env python3
"""CRC-32 oracle: zlib.crc32 of the base64 bytes on stdin, printed in decimal."""
import base64
import sys
import zlib

print(zlib.crc32(base64.b64decode(sys.stdin.read())) & 0xFFFFFFFF)
