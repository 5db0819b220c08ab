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

extensions = [
    Extension(
        "ext.core",
        ["ext/core.pyx"],
        extra_compile_args=(["-O1", "-g", "-fno-omit-frame-pointer",
                             "-fsanitize=address,undefined", "-fno-sanitize-recover=undefined"]
                            if DEBUG else ["-O3"]),
        extra_link_args=["-fsanitize=address,undefined"] if DEBUG else [],
        define_macros=[] if DEBUG else [("NDEBUG", "1")],
    ),
]

setup(ext_modules=cythonize(extensions, compiler_directives=directives,
                            build_dir="build/debug" if DEBUG else "build/release"))
