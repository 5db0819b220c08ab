"""Build the Cython kernels. TNE_DEBUG=1 builds with bounds checks and asserts on."""
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
        extra_compile_args=["-O0", "-g"] if DEBUG else ["-O3"],
        define_macros=[] if DEBUG else [("NDEBUG", "1")],
    ),
]

setup(ext_modules=cythonize(extensions, compiler_directives=directives,
                            build_dir="build/debug" if DEBUG else "build/release"))
