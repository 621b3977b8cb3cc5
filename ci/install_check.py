#!/usr/bin/env python3
"""README's build then its install: `cmake --build --preset default --target gpuperf`, then
`cmake --install build --prefix DIR`. The install copies every target that has an install rule, so each of
them must be built by the `gpuperf` target, or the install stops half-way ("file INSTALL cannot find ...").

A fresh build of only `gpuperf` takes minutes; this checks the same thing from the configured build in a
second: CMake's file API (the codemodel that cmake/install.cmake asks for) lists each target, whether it is
installed, and its dependencies. Every installed target must be `gpuperf` or one it depends on, directly or
not. With --install it then installs the built tree into a scratch prefix and checks the files README names.

  python3 ci/install_check.py BUILD_DIR [--install]
  python3 ci/install_check.py --self-test

Exit 0 when sound, 1 with the missing targets or files named, 2 for bad usage (no codemodel: configure first).
"""
import glob
import json
import os
import subprocess
import sys
import tempfile


def load_codemodel(build_dir):
    """{target name: (installed?, [names of direct dependencies])} from the newest file-API reply."""
    reply = os.path.join(build_dir, ".cmake", "api", "v1", "reply")
    indexes = sorted(glob.glob(os.path.join(reply, "index-*.json")))
    if not indexes and os.path.isfile(os.path.join(build_dir, "CMakeCache.txt")):
        # CMake reads the queries as a run starts, and cmake/install.cmake writes gpuperf's query during the
        # first configure of a fresh build folder: that run answers none. Configuring the same folder again
        # (its cache holds every choice, so nothing else changes) writes the reply.
        subprocess.run(["cmake", build_dir], check=True, stdout=subprocess.DEVNULL)
        indexes = sorted(glob.glob(os.path.join(reply, "index-*.json")))
    if not indexes:
        raise FileNotFoundError(f"no CMake file-API reply in {reply}: configure the build first")
    with open(indexes[-1]) as f:
        index = json.load(f)
    entry = next((o for o in index.get("objects", []) if o.get("kind") == "codemodel"), None)
    if entry is None:
        raise FileNotFoundError(f"{indexes[-1]} has no codemodel (cmake/install.cmake asks for one)")
    with open(os.path.join(reply, entry["jsonFile"])) as f:
        model = json.load(f)
    config = model["configurations"][0]
    by_id, raw = {}, {}
    for t in config["targets"]:
        with open(os.path.join(reply, t["jsonFile"])) as f:
            raw[t["id"]] = json.load(f)
        by_id[t["id"]] = t["name"]
    return {by_id[i]: ("install" in t, [by_id[d["id"]] for d in t.get("dependencies", [])]) for i, t in raw.items()}


def not_built_by(targets, root):
    """Installed targets that building `root` does not build."""
    if root not in targets:
        return [f"(no target named {root})"]
    seen, todo = set(), [root]
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        todo.extend(targets[name][1])
    return sorted(name for name, (installed, _) in targets.items() if installed and name not in seen)


def check_install(build_dir):
    """Installs the built tree into a scratch prefix; returns the expected files that are missing."""
    with tempfile.TemporaryDirectory() as prefix:
        r = subprocess.run(["cmake", "--install", build_dir, "--prefix", prefix], capture_output=True, text=True)
        if r.returncode != 0:
            return [f"cmake --install exited {r.returncode}: {r.stderr.strip()}"]
        want = ["bin/gpuperf", "include/gpuperf/gpuperf.hpp", "share/gpuperf/examples/sample-history.json"]
        missing = [w for w in want if not os.path.exists(os.path.join(prefix, w))]
        for pattern in ["lib*/libgpuperf_main.a", "lib*/gpuperf/libgpuperf_cupti.so",
                        "lib*/cmake/gpuperf/gpuperfConfig.cmake"]:
            if not glob.glob(os.path.join(prefix, pattern)):
                missing.append(pattern)
        return missing


def self_test():
    """The check fails when an installed target is outside gpuperf's dependencies, and passes otherwise."""
    with tempfile.TemporaryDirectory() as build:
        reply = os.path.join(build, ".cmake", "api", "v1", "reply")
        os.makedirs(reply)

        def model(deps_of_exe):
            targets = {"gpuperf": (True, deps_of_exe), "gpuperf_cli": (False, []), "gpuperf_main": (True, ["gpuperf_cli"]),
                       "test_x": (False, ["gpuperf"])}
            entries = []
            for n, (installed, deps) in targets.items():
                t = {"name": n, "dependencies": [{"id": d + "::@1"} for d in deps]}
                if installed:
                    t["install"] = {"destinations": [{"path": "lib"}]}
                with open(os.path.join(reply, f"target-{n}.json"), "w") as f:
                    json.dump(t, f)
                entries.append({"name": n, "id": n + "::@1", "jsonFile": f"target-{n}.json"})
            with open(os.path.join(reply, "codemodel-v2-x.json"), "w") as f:
                json.dump({"configurations": [{"targets": entries}]}, f)
            with open(os.path.join(reply, "index-1.json"), "w") as f:
                json.dump({"objects": [{"kind": "codemodel", "jsonFile": "codemodel-v2-x.json"}]}, f)
            return load_codemodel(build)

        bad = not_built_by(model(["gpuperf_cli"]), "gpuperf")
        good = not_built_by(model(["gpuperf_cli", "gpuperf_main"]), "gpuperf")
    if bad != ["gpuperf_main"] or good != []:
        print(f"self-test failed: missing {bad} (want ['gpuperf_main']), then {good} (want [])")
        return 1
    print("self-test passed")
    return 0


def main(argv):
    if argv == ["--self-test"]:
        return self_test()
    if not argv or argv[0].startswith("-") or any(a != "--install" for a in argv[1:]):
        print(__doc__.strip().splitlines()[-3], file=sys.stderr)
        return 2
    build_dir = argv[0]
    try:
        targets = load_codemodel(build_dir)
    except FileNotFoundError as e:
        print(f"install_check: {e}", file=sys.stderr)
        return 2
    missing = not_built_by(targets, "gpuperf")
    if missing:
        print("install_check: `cmake --install` needs targets that `--target gpuperf` does not build: " +
              ", ".join(missing) + " (add them to add_dependencies(gpuperf ...) in cmake/install.cmake)")
        return 1
    installed = sorted(n for n, (i, _) in targets.items() if i)
    print(f"install_check: the {len(installed)} installed targets are all built by --target gpuperf: "
          + ", ".join(installed))
    if "--install" in argv[1:]:
        absent = check_install(build_dir)
        if absent:
            print("install_check: the install into a scratch prefix lacks: " + "; ".join(absent))
            return 1
        print("install_check: cmake --install into a scratch prefix gave bin/gpuperf, the libraries, the CUPTI "
              "module, the headers and the CMake package")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
