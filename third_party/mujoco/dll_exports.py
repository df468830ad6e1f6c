"""Writes a module-definition (.def) file listing a Windows DLL's exported names.

The mujoco wheel for Windows ships mujoco.dll without its import library;
MSVC's lib.exe makes one from this .def (mujoco_import_lib.cmake). Reads the
PE export directory directly (no dumpbin needed):

    python dll_exports.py mujoco.dll mujoco.def
"""

from __future__ import annotations

import struct
import sys
from pathlib import Path


def exported_names(dll: bytes) -> list[str]:
    pe = struct.unpack_from("<I", dll, 0x3C)[0]
    if dll[pe : pe + 4] != b"PE\0\0":
        raise ValueError("not a PE file")
    sections = struct.unpack_from("<H", dll, pe + 6)[0]
    opt_size = struct.unpack_from("<H", dll, pe + 20)[0]
    opt = pe + 24
    magic = struct.unpack_from("<H", dll, opt)[0]
    data_dirs = opt + (112 if magic == 0x20B else 96)  # PE32+ / PE32
    export_rva = struct.unpack_from("<I", dll, data_dirs)[0]
    table = opt + opt_size

    def offset(rva: int) -> int:
        for i in range(sections):
            s = table + 40 * i
            vsize, vaddr, rsize, raw = struct.unpack_from("<IIII", dll, s + 8)
            if vaddr <= rva < vaddr + max(vsize, rsize):
                return rva - vaddr + raw
        raise ValueError(f"RVA {rva:#x} is in no section")

    if export_rva == 0:
        return []
    e = offset(export_rva)
    count, names_rva = struct.unpack_from("<I", dll, e + 24)[0], struct.unpack_from("<I", dll, e + 32)[0]
    names = []
    for i in range(count):
        p = offset(struct.unpack_from("<I", dll, offset(names_rva) + 4 * i)[0])
        names.append(dll[p : dll.index(b"\0", p)].decode())
    return names


def main() -> None:
    dll, out = Path(sys.argv[1]), Path(sys.argv[2])
    names = exported_names(dll.read_bytes())
    if not names:
        raise SystemExit(f"{dll} exports nothing")
    out.write_text(f"LIBRARY {dll.name}\nEXPORTS\n" + "".join(f"  {n}\n" for n in names))


if __name__ == "__main__":
    main()
