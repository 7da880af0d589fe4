#!/usr/bin/env python3
"""gen-jobs.py - Kubernetes manifests for a kbench acceptance run: one Job
per node, a collector Job that merges and checks, a Pod to fetch the files.

    gen-jobs.py --image IMG --pvc CLAIM --cpu 8 --memory 16Gi
                [--gpus N --gpu-vendor nvidia|amd] [--nodes-file FILE]
                [--run-id ID] [--namespace NS] [--bands-configmap NAME]
                [--kbench PATH] [--results-dir DIR] [--bands-dir DIR]
                --out DIR  NODE...  --  KBENCH-RUN-ARGS...

Everything after "--" is the selection given to `kbench run` on every node
(for example `--model resnet50 --backend onednn`).  Writes
DIR/nodes/<job>.yaml (one Job per node), DIR/collector.yaml and
DIR/fetch.yaml; docs/integrations/kubernetes.md gives the commands
that apply them in order.  The YAML comes from PyYAML when it is installed,
else it is JSON (which is YAML too).  Exit 0 when written, 2 on a usage
error, 3 when a file cannot be written (named on stderr; every manifest is
rendered before any is written).
"""
import argparse
import hashlib
import json
import os
import re
import sys
import tempfile
import time

try:
    import yaml
except ImportError:  # JSON is valid YAML: the manifests need no PyYAML
    yaml = None

GPU_RESOURCE = {"nvidia": "nvidia.com/gpu", "amd": "amd.com/gpu"}
# kbench's exit codes 0, 1 and 3 all mean the results file is complete
# (1: a case FAILED, 3: a case ERROR): the verdict is kbench check's, so the
# Job completes.  Any other code (2: bad selection, 130/143: interrupted,
# 137: killed) means no usable file, and the Job fails.
NODE_SCRIPT = """\
out="$RESULTS/$NODE.jsonl"
mkdir -p "$RESULTS" || exit 3
rm -f "$out"
"$KBENCH" run "$@" --json "$out" --result-lines
rc=$?
echo "KBENCH_EXIT $rc node=$NODE results=$out"
case $rc in 0|1|3) exit 0 ;; *) exit $rc ;; esac
"""
# Every expected node is named (no glob), so a node whose Job never ran is
# reported missing rather than silently left out of the verdict.
COLLECT_SCRIPT = """\
acc="$RESULTS/acceptance"
mkdir -p "$acc" || exit 3
files=""
missing=0
for node; do
  f="$RESULTS/$node.jsonl"
  if [ -s "$f" ]; then files="$files $f"
  else echo "MISSING node=$node: no results file $f"; missing=$((missing + 1))
  fi
done
if [ -z "$files" ]; then
  echo "ACCEPTANCE_STATUS FAIL nodes=$# missing=$missing: no node wrote results"
  exit 1
fi
"$KBENCH" merge $files --md "$acc/merge.md" --svg "$acc/merge.svg" \\
  --json "$acc/merge.json"
merge_rc=$?
[ $merge_rc -eq 0 ] && cat "$acc/merge.md"
"$KBENCH" check $files --bands "$BANDS" --junit "$acc/check.xml"
check_rc=$?
status=PASS
if [ $missing -gt 0 ] || [ $merge_rc -ne 0 ] || [ $check_rc -ne 0 ]; then
  status=FAIL
fi
echo "ACCEPTANCE_STATUS $status nodes=$# missing=$missing" \\
  "merge_exit=$merge_rc check_exit=$check_rc outputs=$acc"
[ $check_rc -ne 0 ] && exit $check_rc
[ $merge_rc -ne 0 ] && exit $merge_rc
[ $missing -eq 0 ] || exit 1
"""
NODE_NAME = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?"
                       r"(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")
LABEL_VALUE = re.compile(r"^[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$")
MEMORY = re.compile(r"^[0-9]+(Ki|Mi|Gi|Ti|k|M|G|T)?$")
APP = "kbench"


class UsageError(Exception):
    """A bad argument; the message names it."""


def dns_label(prefix, name):
    """prefix-name as a DNS-1123 label (Job names, pod hostnames): dots
    become dashes, and a name too long for 63 characters is cut and given a
    hash of the whole so that two cut names stay distinct."""
    label = f"{prefix}{name.replace('.', '-')}"
    if len(label) <= 63:
        return label
    digest = hashlib.sha1(name.encode()).hexdigest()[:8]
    return f"{label[:54].rstrip('-')}-{digest}"


def read_nodes(args):
    """The node names from the arguments and --nodes-file, in order.
    Raises UsageError on an unreadable file, a name Kubernetes would not
    accept, a duplicate, or no node at all."""
    nodes = list(args.nodes)
    if args.nodes_file:
        try:
            with open(args.nodes_file, encoding="utf-8") as f:
                lines = f.read().splitlines()
        except OSError as e:
            raise UsageError(f"--nodes-file {args.nodes_file}: {e.strerror}")
        for line in lines:
            line = line.split("#", 1)[0].strip()
            if line:
                nodes.append(line)
    if not nodes:
        raise UsageError("no node given (NODE... or --nodes-file FILE)")
    seen = {}
    for node in nodes:
        if len(node) > 253 or not NODE_NAME.match(node):
            raise UsageError(f"node {node!r} is not a Kubernetes node name "
                             "(lowercase DNS subdomain)")
        label = dns_label("", node)
        if label in seen:
            raise UsageError(f"nodes {seen[label]!r} and {node!r} would share "
                             f"the Job and hostname {label!r}")
        seen[label] = node
    return nodes


def resources(cpu, memory, gpus=0, vendor=None):
    """Guaranteed QoS: requests equal to limits.  GPUs are an extended
    resource, requested under limits only (the request defaults to it)."""
    amounts = {"cpu": str(cpu), "memory": memory}
    limits = dict(amounts)
    if gpus:
        limits[GPU_RESOURCE[vendor]] = str(gpus)
    return {"requests": amounts, "limits": limits}


def metadata(name, args, part):
    meta = {"name": name,
            "labels": {"app.kubernetes.io/name": APP,
                       "kbench.run": args.run_id, "kbench.part": part}}
    if args.namespace:
        meta["namespace"] = args.namespace
    return meta


def results_volume(args):
    return {"name": "results",
            "persistentVolumeClaim": {"claimName": args.pvc}}


def env(pairs):
    return [{"name": k, "value": str(v)} for k, v in pairs]


def job(name, args, part, pod_spec):
    """A Job that runs once: a benchmark retried elsewhere or again would
    hide the failure it is there to show."""
    return {"apiVersion": "batch/v1", "kind": "Job",
            "metadata": metadata(name, args, part),
            "spec": {"backoffLimit": 0,
                     "template": {"metadata": {"labels":
                                               metadata(name, args, part)
                                               ["labels"]},
                                  "spec": pod_spec}}}


def node_job(node, args, run_args):
    results = f"{args.results_dir}/{args.run_id}"
    container = {
        "name": "kbench",
        "image": args.image,
        "command": ["/bin/sh", "-c", NODE_SCRIPT, "kbench-node"] + run_args,
        # OpenMP would otherwise start one thread per host CPU it can see
        "env": env([("NODE", node), ("RESULTS", results),
                    ("KBENCH", args.kbench), ("OMP_NUM_THREADS", args.cpu)]),
        "resources": resources(args.cpu, args.memory, args.gpus,
                               args.gpu_vendor),
        "volumeMounts": [{"name": "results", "mountPath": args.results_dir}],
    }
    pod = {"restartPolicy": "Never",
           "nodeSelector": {"kubernetes.io/hostname": node},
           # kbench records gethostname(); a pod's is its own name otherwise
           "hostname": dns_label("", node),
           "containers": [container],
           "volumes": [results_volume(args)]}
    return job(dns_label("kbench-", node), args, "node", pod)


def collector_job(nodes, args):
    container = {
        "name": "collect",
        "image": args.image,
        "command": ["/bin/sh", "-c", COLLECT_SCRIPT, "kbench-collect"] + nodes,
        "env": env([("RESULTS", f"{args.results_dir}/{args.run_id}"),
                    ("BANDS", f"{args.bands_dir}/bands.jsonl"),
                    ("KBENCH", args.kbench)]),
        "resources": resources(1, "1Gi"),
        "volumeMounts": [{"name": "results", "mountPath": args.results_dir},
                         {"name": "bands", "mountPath": args.bands_dir,
                          "readOnly": True}],
    }
    pod = {"restartPolicy": "Never",
           "containers": [container],
           "volumes": [results_volume(args),
                       {"name": "bands",
                        "configMap": {"name": args.bands_configmap}}]}
    return job("kbench-collect", args, "collector", pod)


def fetch_pod(args):
    """A pod that holds the volume open, so that `kubectl cp` can copy the
    results out (a finished Job's pod cannot be copied from)."""
    container = {"name": "fetch", "image": args.image,
                 "command": ["sleep", "3600"],
                 "resources": resources(1, "256Mi"),
                 "volumeMounts": [{"name": "results",
                                   "mountPath": args.results_dir,
                                   "readOnly": True}]}
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": metadata("kbench-fetch", args, "fetch"),
            "spec": {"restartPolicy": "Never", "containers": [container],
                     "volumes": [results_volume(args)]}}


def literal_str(dumper, s):
    """Multi-line strings (the scripts) as YAML literal blocks."""
    style = "|" if "\n" in s else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", s, style=style)


def render(doc, header):
    if yaml is None:
        return header + json.dumps(doc, indent=2) + "\n"
    dumper = type("Dumper", (yaml.SafeDumper,), {})
    dumper.add_representer(str, literal_str)
    return header + yaml.dump(doc, Dumper=dumper, sort_keys=False,
                              default_flow_style=False)


def write_all(files):
    """Every manifest rendered first, then written to a temporary file
    renamed over its path: nothing is half-written.  Raises OSError."""
    for path, text in files:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path), suffix=".tmp")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                f.write(text)
            os.replace(tmp, path)
        except BaseException:
            os.unlink(tmp)
            raise


def parse_args(argv):
    cut = argv.index("--") if "--" in argv else len(argv)
    run_args = argv[cut + 1:]
    for forbidden in ("--json", "--result-lines"):
        if forbidden in run_args:
            raise UsageError(f"{forbidden} is set by the Job: leave it out "
                             "of the selection")
    p = argparse.ArgumentParser(
        prog="gen-jobs.py",
        description="One Kubernetes Job per node running kbench, and a "
                    "collector Job that merges and checks the results.")
    p.add_argument("nodes", nargs="*", metavar="NODE")
    p.add_argument("--nodes-file", help="node names, one a line (# comments)")
    p.add_argument("--image", required=True,
                   help="an image with kbench installed (bin/ and share/kbench)")
    p.add_argument("--pvc", required=True,
                   help="a ReadWriteMany PersistentVolumeClaim for the results")
    p.add_argument("--cpu", type=int, required=True,
                   help="whole CPUs per node Job (requests = limits)")
    p.add_argument("--memory", required=True, help="memory per node Job, e.g. 16Gi")
    p.add_argument("--gpus", type=int, default=0, help="GPUs per node Job")
    p.add_argument("--gpu-vendor", choices=sorted(GPU_RESOURCE))
    p.add_argument("--run-id", default=time.strftime("%Y%m%dt%H%M%Sz",
                                                     time.gmtime()),
                   help="names this run's results folder and labels its "
                        "objects (default: the UTC time)")
    p.add_argument("--namespace")
    p.add_argument("--bands-configmap", default="kbench-bands",
                   help="ConfigMap holding bands.jsonl (default kbench-bands)")
    p.add_argument("--kbench", default="kbench",
                   help="kbench in the image (default: kbench on PATH)")
    p.add_argument("--results-dir", default="/results",
                   help="where the volume is mounted (default /results)")
    p.add_argument("--bands-dir", default="/bands",
                   help="where the bands ConfigMap is mounted (default /bands)")
    p.add_argument("--out", required=True, help="output directory")
    args = p.parse_args(argv[:cut])  # exits 0 for --help, 2 on a bad option
    if not run_args:
        raise UsageError("no selection: give `-- KBENCH-RUN-ARGS...` last "
                         "(for example -- --model resnet50)")
    if args.cpu < 1:
        raise UsageError("--cpu must be at least 1 whole CPU: a fraction "
                         "gets no exclusive cores")
    if not MEMORY.match(args.memory):
        raise UsageError(f"--memory {args.memory!r} is not a Kubernetes "
                         "quantity such as 16Gi")
    if args.gpus < 0 or bool(args.gpus) != bool(args.gpu_vendor):
        raise UsageError("--gpus N (N > 0) and --gpu-vendor go together")
    if not LABEL_VALUE.match(args.run_id):
        raise UsageError(f"--run-id {args.run_id!r} is not a label value "
                         "(letters, digits, - _ ., at most 63)")
    return args, run_args


def main(argv):
    try:
        args, run_args = parse_args(argv)
        nodes = read_nodes(args)
    except UsageError as e:
        print(f"gen-jobs.py: {e}", file=sys.stderr)
        return 2
    header = ("# Generated by integrations/kubernetes/gen-jobs.py "
              f"(run {args.run_id}); do not edit, generate again.\n")
    files = [(os.path.join(args.out, "nodes",
                           dns_label("kbench-", n) + ".yaml"),
              render(node_job(n, args, run_args), header)) for n in nodes]
    files.append((os.path.join(args.out, "collector.yaml"),
                  render(collector_job(nodes, args), header)))
    files.append((os.path.join(args.out, "fetch.yaml"),
                  render(fetch_pod(args), header)))
    try:
        write_all(files)
    except OSError as e:
        print(f"gen-jobs.py: cannot write {e.filename}: {e.strerror}",
              file=sys.stderr)
        return 3
    print(f"gen-jobs.py: {len(nodes)} node Jobs, the collector and the fetch "
          f"pod (run {args.run_id}) in {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
