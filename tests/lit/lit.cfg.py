# lit configuration for vigil's compiler and end-to-end tests.
#   VIGIL_BUILD   the build directory (default <repo>/build)
import os
import sys

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
# Statistics that count runtime calls differ between the two: such a check
# names its FileCheck prefix with %fastpath (FAST or NOFAST).
config.substitutions.append(("%fastpath", "FAST" if fast_path != "0" else "NOFAST"))

config.environment["PATH"] = os.pathsep.join(
    [os.path.join(build, "bin"), llvm_bin, os.environ.get("PATH", "")])
config.environment["HOME"] = os.environ.get("HOME", "/root")
# The static checker (docs/static.md) prunes proven assertions and fails
# the link on violated ones by default when optimising; most tests here
# check what the runtime does, so the suite runs with VIGIL_STATIC=off
# unless run-all.sh sets it (report: the checker runs on every test and
# must change nothing).  The static/ tests choose their mode themselves.
config.environment["VIGIL_STATIC"] = os.environ.get("VIGIL_STATIC", "off")
if config.environment["VIGIL_STATIC"] != "off":
    config.test_exec_root += "-static-" + config.environment["VIGIL_STATIC"]
# Reports are part of what the tests check; keep them deterministic.
config.environment["VIGIL_BACKTRACE"] = "1"

config.substitutions.append(("%vigil-cc", os.path.join(build, "bin", "vigil-cc")))
config.substitutions.append(("%vigil-bin", os.path.join(build, "bin", "vigil")))
config.substitutions.append(("%vigil-pass", os.path.join(build, "lib", "vigil-pass.so")))
config.substitutions.append(("%python", sys.executable))
config.substitutions.append(("%include", os.path.join(root, "include")))
config.substitutions.append(("%root", root))
# The C step function's conformance runner (tests/conformance/vk_run.c).
config.substitutions.append(("%vk-run", os.path.join(build, "tests", "vk_run")))
# ftrace: a private tracefs instance can be created (root, tracefs mounted).
def _ftrace_ok():
    inst = "/sys/kernel/tracing/instances/vigil-probe-%d" % os.getpid()
    try:
        os.mkdir(inst)
        os.rmdir(inst)
        return True
    except OSError as e:
        lit_config.note("tests/lit/live are UNSUPPORTED: cannot create a tracefs instance (%s)" % e)
        return False
if _ftrace_ok():
    config.available_features.add("ftrace")
# The kernel's RV models (../shared, beside the repository: test data only).
if os.path.isdir(os.path.join(root, "..", "shared", "models", "kernel-rv")):
    config.available_features.add("kernel-rv-models")
config.substitutions.append(
    ("%clang-vigil",
     "clang-19 -D__VIGIL__=1 -I%s -fplugin=%s" %
     (os.path.join(root, "include"), os.path.join(build, "lib", "vigil-clang.so"))))

if os.path.exists("/usr/bin/gcc"):
    config.available_features.add("gcc")
# debug/ and static/ check gdb and valgrind; without them those tests are skipped
import shutil
for tool in ("valgrind", "gdb"):
    if shutil.which(tool):
        config.available_features.add(tool)

# bpf-record: `vigil record` can really run here: vigil-bpf-record was built,
# this process is root, the kernel has BTF, and a tiny recording (a
# tracepoint, system-wide, 0.1 s) loads, attaches and writes a stream.
# Without it the tests under tests/lit/record are UNSUPPORTED, and this says
# why.
def _record_reason():
    import subprocess
    import tempfile
    loader = os.path.join(build, "bin", "vigil-bpf-record")
    if not os.path.exists(loader):
        return "%s not built (make build skips it without /sys/kernel/btf/vmlinux or bpftool)" % loader
    if os.geteuid() != 0:
        return "not running as root"
    if not os.path.exists("/sys/kernel/btf/vmlinux"):
        return "this kernel has no /sys/kernel/btf/vmlinux (CONFIG_DEBUG_INFO_BTF)"
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "probe.bson")
        try:
            r = subprocess.run([loader, "--system-wide", "--tracepoint", "sched:sched_process_exit",
                                "--duration", "0.1", "--stream", "file:" + out],
                               capture_output=True, text=True, timeout=60)
        except (OSError, subprocess.TimeoutExpired) as e:
            return "the probe recording did not run: %s" % e
        if r.returncode != 0 or not os.path.exists(out):
            return "the probe recording failed: %s" % (r.stderr.strip()[-600:] or r.returncode)
    return None


if os.path.exists(os.path.join(build, "bin", "vigil-bpf-record")):
    config.available_features.add("record-loader")  # the checks before loading need no root
_why_not_record = _record_reason()
if _why_not_record is None:
    config.available_features.add("bpf-record")
else:
    lit_config.note("vigil record tests (REQUIRES: bpf-record) are UNSUPPORTED: %s" % _why_not_record)
