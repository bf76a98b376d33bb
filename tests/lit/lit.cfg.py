# lit configuration for vigil's compiler and end-to-end tests.
#   VIGIL_BUILD   the build directory (default <repo>/build)
import os

import lit.formats

config.name = "vigil"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".c", ".test"]
config.excludes = ["Inputs"]

root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
build = os.environ.get("VIGIL_BUILD", os.path.join(root, "build"))
llvm_bin = "/usr/lib/llvm-19/bin"

config.test_source_root = os.path.dirname(os.path.abspath(__file__))
# VIGIL_FAST_PATH=0 links every hook as a runtime call (no inline fast
# path); run-all.sh runs the end-to-end tests both ways.
fast_path = os.environ.get("VIGIL_FAST_PATH", "1")
config.test_exec_root = os.path.join(build, "lit" if fast_path != "0" else "lit-nofast")
config.environment["VIGIL_FAST_PATH"] = fast_path

config.environment["PATH"] = os.pathsep.join(
    [os.path.join(build, "bin"), llvm_bin, os.environ.get("PATH", "")])
config.environment["HOME"] = os.environ.get("HOME", "/root")
# Reports are part of what the tests check; keep them deterministic.
config.environment["VIGIL_BACKTRACE"] = "1"

config.substitutions.append(("%vigil-cc", os.path.join(build, "bin", "vigil-cc")))
config.substitutions.append(("%vigil-bin", os.path.join(build, "bin", "vigil")))
config.substitutions.append(("%include", os.path.join(root, "include")))
config.substitutions.append(("%root", root))
config.substitutions.append(
    ("%clang-vigil",
     "clang-19 -D__VIGIL__=1 -I%s -fplugin=%s" %
     (os.path.join(root, "include"), os.path.join(build, "lib", "vigil-clang.so"))))

if os.path.exists("/usr/bin/gcc"):
    config.available_features.add("gcc")
