#!/usr/bin/env python3
"""check-manifests.py - the fields an acceptance run depends on, in what
gen-jobs.py wrote (the schemas are kubernetes-validate's job):

    check-manifests.py DIR --nodes N1,N2 --pvc CLAIM --cpu C --memory M
                       [--gpus G --gpu-vendor V] [--run KBENCH]

Each node has one Job pinned to it by kubernetes.io/hostname, run once;
every container's CPU and memory requests equal its limits (guaranteed
QoS) and are valid quantities; the node Jobs ask for exactly G GPUs of
vendor V under limits and none of another vendor; the results volume is
the claim, mounted where the scripts write; the collector names every node
and runs kbench merge and kbench check --bands --junit.

--run KBENCH also runs the generated container commands here, unchanged,
with that kbench and a temporary folder for the volume (the scripts read
their paths from the environment): every node's output holds SUITE_STATUS,
the collector passes against bands made from those results, and fails
naming the node when one node's file is removed.

Prints one line per failed check; exit 0 when all hold, 1 otherwise.
"""
import argparse
import glob
import json
import os
import re
import subprocess
import sys
import tempfile

try:
    import yaml
except ImportError:  # gen-jobs.py writes JSON when PyYAML is missing
    yaml = None

GPU_RESOURCE = {"nvidia": "nvidia.com/gpu", "amd": "amd.com/gpu"}
LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$")
QUANTITY = re.compile(r"^[0-9]+(\.[0-9]+)?(m|Ki|Mi|Gi|Ti|k|M|G|T)?$")
failures = []


def expect(ok, what):
    if not ok:
        failures.append(what)
    return ok


def load(path):
    """The manifest in path, or None (a failure) when it does not parse."""
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
        if yaml:
            return yaml.safe_load(text)
        return json.loads("".join(l for l in text.splitlines(True)
                                  if not l.startswith("#")))
    except OSError as e:
        expect(False, f"{path}: cannot read: {e.strerror}")
    except (ValueError, getattr(yaml, "YAMLError", ValueError)) as e:
        expect(False, f"{path}: does not parse: {e}")
    return None


def pod_spec(doc):
    return doc["spec"]["template"]["spec"] if doc["kind"] == "Job" \
        else doc["spec"]


def env_of(container):
    return {e["name"]: e["value"] for e in container.get("env", [])}


def check_resources(where, container, gpus=0, vendor=None):
    res = container.get("resources", {})
    req, lim = res.get("requests", {}), res.get("limits", {})
    for key in ("cpu", "memory"):
        if expect(key in req and key in lim,
                  f"{where}: {key} missing from requests or limits"):
            expect(req[key] == lim[key],
                   f"{where}: {key} request {req[key]} != limit {lim[key]}")
            expect(QUANTITY.match(str(lim[key])),
                   f"{where}: {key} {lim[key]!r} is not a quantity")
    for name, resource in GPU_RESOURCE.items():
        want = str(gpus) if gpus and name == vendor else None
        expect(lim.get(resource) == want,
               f"{where}: limits {resource} = {lim.get(resource)}, "
               f"expected {want}")
        if resource in req:  # allowed, but then it must equal the limit
            expect(req[resource] == lim.get(resource),
                   f"{where}: {resource} request != limit")


def check_volume(where, spec, container, args, mount_path):
    vols = {v["name"]: v for v in spec.get("volumes", [])}
    claim = vols.get("results", {}).get("persistentVolumeClaim", {})
    expect(claim.get("claimName") == args.pvc,
           f"{where}: results volume is not claim {args.pvc}")
    mounts = {m["name"]: m["mountPath"]
              for m in container.get("volumeMounts", [])}
    expect(mounts.get("results") == mount_path,
           f"{where}: results volume not mounted at {mount_path}")
    return vols, mounts


def check_job_basics(where, doc):
    expect(doc.get("apiVersion") == "batch/v1" and doc.get("kind") == "Job",
           f"{where}: not a batch/v1 Job")
    expect(doc["spec"].get("backoffLimit") == 0,
           f"{where}: backoffLimit is not 0 (a retry hides a failure)")
    expect(pod_spec(doc).get("restartPolicy") == "Never",
           f"{where}: restartPolicy is not Never")
    expect(len(doc["metadata"]["name"]) <= 63,
           f"{where}: name longer than 63 characters")


def check_node_jobs(args, nodes):
    docs = {}
    for path in sorted(glob.glob(os.path.join(args.dir, "nodes", "*.yaml"))):
        doc = load(path)
        if doc is None:
            continue
        check_job_basics(path, doc)
        spec = pod_spec(doc)
        node = spec.get("nodeSelector", {}).get("kubernetes.io/hostname")
        if not expect(node in nodes, f"{path}: pinned to {node!r}, "
                      f"not one of {sorted(nodes)}"):
            continue
        expect(node not in docs, f"{path}: a second Job for node {node}")
        expect(LABEL.match(spec.get("hostname", "")),
               f"{path}: hostname {spec.get('hostname')!r} is not a DNS label")
        docs[node] = doc
        (c,) = spec["containers"]
        check_resources(path, c, args.gpus, args.gpu_vendor)
        check_volume(path, spec, c, args, "/results")
        env = env_of(c)
        expect(env.get("NODE") == node, f"{path}: NODE is not {node}")
        expect(env.get("RESULTS", "").startswith("/results/"),
               f"{path}: RESULTS {env.get('RESULTS')} is not on the volume")
        script = c["command"][2]
        expect("--json" in script and "--result-lines" in script,
               f"{path}: kbench run without --json and --result-lines")
    for node in nodes:
        expect(node in docs, f"node {node}: no Job")
    return docs


def check_collector(args, nodes):
    path = os.path.join(args.dir, "collector.yaml")
    doc = load(path)
    if doc is None:
        return None
    check_job_basics(path, doc)
    spec = pod_spec(doc)
    (c,) = spec["containers"]
    check_resources(path, c)
    vols, mounts = check_volume(path, spec, c, args, "/results")
    expect("configMap" in vols.get("bands", {}) and "bands" in mounts,
           f"{path}: no bands ConfigMap mounted")
    expect(c["command"][4:] == nodes,
           f"{path}: names nodes {c['command'][4:]}, expected {nodes}")
    script = c["command"][2]
    for needed in ('merge $files', 'check $files --bands', '--junit'):
        expect(needed in script, f"{path}: the script lacks {needed!r}")
    return doc


def check_fetch(args):
    path = os.path.join(args.dir, "fetch.yaml")
    doc = load(path)
    if doc is None:
        return
    expect(doc.get("kind") == "Pod", f"{path}: not a Pod")
    (c,) = doc["spec"]["containers"]
    check_resources(path, c)
    check_volume(path, doc["spec"], c, args, "/results")


def run_container(doc, overrides):
    """The container's own command and environment, paths overridden."""
    (c,) = pod_spec(doc)["containers"]
    env = {**os.environ, **env_of(c), **overrides}
    return subprocess.run(c["command"], env=env, capture_output=True,
                          text=True, timeout=600)


def run_here(args, node_docs, collector):
    """Executes the Jobs' scripts against a real kbench; see the header."""
    kbench = os.path.abspath(args.run)
    with tempfile.TemporaryDirectory(prefix="kbench-k8s-") as tmp:
        # /results/<run-id> becomes <tmp>/results/<run-id>
        results = tmp + env_of(pod_spec(collector)["containers"][0])["RESULTS"]
        where = {"RESULTS": results, "KBENCH": kbench}
        for node, doc in node_docs.items():
            p = run_container(doc, where)
            expect(p.returncode == 0 and "SUITE_STATUS PASS" in p.stdout,
                   f"node {node} script: exit {p.returncode}, no "
                   f"SUITE_STATUS PASS\n{p.stdout}{p.stderr}")
        files = sorted(glob.glob(results + "/*.jsonl"))
        bands = os.path.join(tmp, "bands.jsonl")
        # a band this wide passes any figure: the run tests the plumbing,
        # and timing noise here must not fail it
        subprocess.run([kbench, "baseline", *files, "--k", "1000000",
                        "--bands", bands], check=True, capture_output=True)
        where["BANDS"] = bands
        p = run_container(collector, where)
        expect(p.returncode == 0 and "ACCEPTANCE_STATUS PASS" in p.stdout
               and "CHECK_STATUS PASS" in p.stdout
               and os.path.getsize(results + "/acceptance/check.xml") > 0,
               f"collector: exit {p.returncode}, not PASS\n{p.stdout}"
               f"{p.stderr}")
        gone = sorted(node_docs)[0]
        os.remove(f"{results}/{gone}.jsonl")
        p = run_container(collector, where)
        expect(p.returncode == 1 and f"MISSING node={gone}:" in p.stdout
               and "ACCEPTANCE_STATUS FAIL" in p.stdout,
               f"collector without {gone}'s file: exit {p.returncode}, "
               f"did not name it missing\n{p.stdout}{p.stderr}")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("dir")
    p.add_argument("--nodes", required=True, type=lambda s: s.split(","))
    p.add_argument("--pvc", required=True)
    p.add_argument("--cpu", required=True)
    p.add_argument("--memory", required=True)
    p.add_argument("--gpus", type=int, default=0)
    p.add_argument("--gpu-vendor", choices=sorted(GPU_RESOURCE))
    p.add_argument("--run", metavar="KBENCH")
    args = p.parse_args()
    try:
        node_docs = check_node_jobs(args, args.nodes)
        for node, doc in node_docs.items():
            (c,) = pod_spec(doc)["containers"]
            lim = c["resources"]["limits"]
            expect(lim.get("cpu") == args.cpu
                   and lim.get("memory") == args.memory,
                   f"node {node}: limits {lim}, expected cpu {args.cpu} "
                   f"memory {args.memory}")
        collector = check_collector(args, args.nodes)
        check_fetch(args)
    except (KeyError, TypeError, ValueError, IndexError) as e:
        # a manifest without a field the checks walk through
        expect(False, f"{args.dir}: a manifest lacks or mistypes {e!r}")
    if args.run and not failures:
        run_here(args, node_docs, collector)
    for f in failures:
        print(f"check-manifests: FAIL {f}")
    print(f"check-manifests: {args.dir}: {len(args.nodes)} nodes, "
          f"{len(failures)} failure(s)" + (", scripts run with " + args.run
                                           if args.run else ""))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
