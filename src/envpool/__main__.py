"""``python -m envpool --include-dir | --cmake-dir | --abi``: where the installed C++ SDK is.

``cmake -Denvpool_DIR=$(python -m envpool --cmake-dir)`` finds the CMake package
(``find_package(envpool CONFIG REQUIRED)``, ``envpool_add_extension``), as
``pybind11 --cmakedir`` does; ``-I$(python -m envpool --include-dir)`` is all a
family's sources need for ``#include <envpool/envpool.h>``.
"""

from __future__ import annotations

import argparse
import sys


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m envpool", description="Paths of envpool's installed C++ SDK.")
    g = p.add_mutually_exclusive_group(required=True)
    g.add_argument("--include-dir", action="store_true", help="the folder to add with -I (<envpool/envpool.h>)")
    g.add_argument("--cmake-dir", action="store_true", help="the folder of envpoolConfig.cmake (envpool_DIR)")
    g.add_argument("--abi", action="store_true", help="the version and C++ ABI a family module must be built for")
    args = p.parse_args(argv)
    from envpool import cpp_extension

    if args.include_dir:
        print(cpp_extension.include_dir())
    elif args.cmake_dir:
        print(cpp_extension.cmake_dir())
    else:
        abi = cpp_extension.abi()
        print(f"{abi['stamp']}\n{abi['compiler']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
