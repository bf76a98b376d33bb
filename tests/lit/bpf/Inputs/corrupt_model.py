"""corrupt_model.py IN OUT HOW: a compiled model (include/vigil/vk.h) with
one defect, for the loader's refusal tests.  Offsets are struct vk_header's
and struct vk_rule's."""
import struct
import sys

src, dst, how = sys.argv[1:4]
b = bytearray(open(src, "rb").read())


def u16(off, v):
    struct.pack_into("<H", b, off, v)


def u32(off, v):
    struct.pack_into("<I", b, off, v)


def get32(off):
    return struct.unpack_from("<I", b, off)[0]


off_next, off_rule, names_len = get32(28), get32(52), get32(60)
if how == "magic":
    u32(0, 0x12345678)
elif how == "abi":
    u16(8, 99)
elif how == "truncated":
    b = b[:96]
elif how == "section":
    u32(52, 0xfffffff0)  # off_rule
elif how == "names":
    u32(60, names_len - 1)  # the last name loses its NUL
elif how == "transition":
    u16(off_next, 0x7777)
elif how == "rule-source":
    u16(off_rule + 12, 999)
elif how == "no-key":
    b[off_rule + 3] = 0xFF
elif how == "key-field":
    b[off_rule + 3] = 15
else:
    sys.exit("unknown defect " + how)
open(dst, "wb").write(bytes(b))
