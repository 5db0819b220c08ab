"""Build the Cython kernels.

On x86-64 the kernels use the POPCNT instruction (every x86-64 processor
since 2008 has it); without -mpopcnt GCC calls a software popcount, which
took 9% of a 4-player search. TNE_PORTABLE=1 leaves it out.

TNE_DEBUG=1 builds the debug flavour: Cython's bounds and wraparound checks
on, and the C code compiled with AddressSanitizer and UBSan, so that any
out-of-bounds access in a kernel aborts with a report instead of silently
corrupting memory. Run the tests against it with the sanitizer runtime
preloaded (see .ci/run).
"""
import os
import platform

from Cython.Build import cythonize
from setuptools import Extension, setup

DEBUG = os.environ.get("TNE_DEBUG", "") not in ("", "0")

directives = {
    "language_level": 3,
    "boundscheck": DEBUG,
    "wraparound": DEBUG,
    "initializedcheck": DEBUG,
    "cdivision": not DEBUG,
    "embedsignature": True,
}

# -UNDEBUG: Python's own CFLAGS define NDEBUG, which would drop the C asserts of the debug build
COMPILE = (["-O1", "-g", "-fno-omit-frame-pointer", "-UNDEBUG",
            "-fsanitize=address,undefined", "-fno-sanitize-recover=undefined"]
           if DEBUG else ["-O3"])
LINK = ["-fsanitize=address,undefined"] if DEBUG else []
MACROS = [] if DEBUG else [("NDEBUG", "1")]
if (platform.machine().lower() in ("x86_64", "amd64")
        and os.environ.get("TNE_PORTABLE", "") in ("", "0")):
    COMPILE.append("-mpopcnt")

extensions = [
    Extension(name, [f"{name.replace('.', '/')}.pyx"], extra_compile_args=COMPILE,
              extra_link_args=LINK, define_macros=MACROS)
    for name in ("ext.core", "ext.search.evaluation", "ext.search.tree", "ext.search.greedy")
]

setup(ext_modules=cythonize(extensions, compiler_directives=directives,
                            build_dir="build/debug" if DEBUG else "build/release"))
