"""Build the Cython kernels.

TNE_DEBUG=1 builds the debug flavour: Cython's bounds and wraparound checks
on, and the C code compiled with AddressSanitizer and UBSan, so that any
out-of-bounds access in a kernel aborts with a report instead of silently
corrupting memory. Run the tests against it with the sanitizer runtime
preloaded (see .ci/run).
"""
import os

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

COMPILE = (["-O1", "-g", "-fno-omit-frame-pointer",
            "-fsanitize=address,undefined", "-fno-sanitize-recover=undefined"]
           if DEBUG else ["-O3"])
LINK = ["-fsanitize=address,undefined"] if DEBUG else []
MACROS = [] if DEBUG else [("NDEBUG", "1")]

extensions = [
    Extension(name, [f"{name.replace('.', '/')}.pyx"], extra_compile_args=COMPILE,
              extra_link_args=LINK, define_macros=MACROS)
    for name in ("ext.core", "ext.heuristics", "ext.mcts", "ext.greedy")
]

setup(ext_modules=cythonize(extensions, compiler_directives=directives,
                            build_dir="build/debug" if DEBUG else "build/release"))
