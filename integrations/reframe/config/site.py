# site.py - ReFrame 4 site configuration for kbench: this machine, a Slurm cluster, a Kubernetes cluster.
#
#   reframe -C integrations/reframe/config/site.py --system local ...
#   reframe -C integrations/reframe/config/site.py --system slurm-local --distribute=all ...
#
# A site copies the system it needs and changes the names, hostnames and
# access options; the checks themselves need nothing site-specific.
import os

site_configuration = {
    'systems': [
        {
            'name': 'local',
            'descr': 'this machine, tests run as local processes',
            'hostnames': ['.*'],
            'partitions': [
                {
                    'name': 'default',
                    'scheduler': 'local',
                    'launcher': 'local',
                    'environs': ['gnu'],
                    'max_jobs': 1,          # one benchmark at a time: they share the cores
                },
            ],
        },
        {
            # The test cluster of integrations/slurm/local-cluster.sh (nodes
            # n1..n3, partition debug, SLURM_CONF exported). It keeps no
            # accounting, so 'squeue' (which polls squeue) and not 'slurm'
            # (which asks sacct); a site with slurmdbd uses 'slurm'.
            'name': 'slurm-local',
            'descr': 'Slurm: one exclusive job per node (--distribute=all)',
            'hostnames': [],            # chosen with --system only
            'partitions': [
                {
                    'name': 'debug',
                    'scheduler': 'squeue',
                    'launcher': 'srun',
                    'access': ['--partition=debug'],
                    'environs': ['gnu'],
                    'max_jobs': 3,
                },
            ],
        },
        {
            # NOT RUNNABLE HERE, and not by stock ReFrame: it has no
            # Kubernetes scheduler. EPCC's ML benchmarking work added one as
            # a scheduler plugin; a site registers its own with
            # reframe.core.backends.register_scheduler('kubernetes') in a
            # module that this file imports, and puts what its plugin reads
            # (namespace, image, node labels) in sched_options/access. One
            # pod per test; --distribute pins each to a node through the
            # kubernetes.io/hostname nodeSelector, GPUs are requested as
            # resource limits. Such schedulers lose the pod's exit status,
            # which is why the checks judge the printed SUITE_STATUS line.
            'name': 'k8s',
            'descr': 'Kubernetes (needs a site scheduler plugin; example only)',
            'hostnames': [],
            'partitions': [
                {
                    'name': 'gpu',
                    'scheduler': 'kubernetes',
                    'launcher': 'local',    # the pod's command is the test's command
                    'access': ['--namespace=benchmarks',
                               '--image=registry.example.org/kbench:latest'],
                    'environs': ['gnu'],
                    'max_jobs': 16,
                    'resources': [
                        {'name': 'gpu', 'options': ['--limits=nvidia.com/gpu={num_gpus}']},
                    ],
                },
            ],
        },
    ],
    'environments': [
        {
            'name': 'gnu',
            'cc': os.environ.get('CC', 'gcc'),
        },
    ],
    'general': [
        {
            'check_search_path': [os.path.join(os.path.dirname(__file__), '..')],
            'purge_environment': False,
        },
    ],
}
