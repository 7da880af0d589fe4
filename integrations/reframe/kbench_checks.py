# kbench_checks.py - ReFrame 4 checks: kbench built per backend, one test per model, judged on its RESULT lines.
#
#   reframe -C integrations/reframe/config/site.py \
#           -c integrations/reframe/kbench_checks.py -r --system local \
#           [-S kbench_bin=build/default/kbench] [-S kernel=gemm] [-S layer=REGEX] [-S peaks=FILE]
#           [-S history_db=FILE]
#
# KBENCH_BACKENDS (comma list, default every CPU backend of
# backends/backends.txt) is the build
# fixture's parameter: one kbench build, and one test per model, per backend.
import os
import re
import shlex
import subprocess

import reframe as rfm
import reframe.utility.sanity as sn
from reframe.core.builtins import (fixture, parameter, run_after, run_before,
                                   sanity_function, variable)
from reframe.core.exceptions import SanityError

SOURCE_DIR = os.path.normpath(os.path.join(os.path.dirname(__file__), '..', '..'))

# What CMake needs to build each backend alone: its switch ON and every
# other one OFF (backends/backends.txt: NAME SWITCH DEVICE; omp has none,
# it is always built).  The vendor options build a backend only when its
# library is found, so the fixture's sanity asks the binary whether it
# really has it.
def _backend_table():
    table = {}
    with open(os.path.join(SOURCE_DIR, 'backends', 'backends.txt')) as f:
        for line in f:
            fields = line.split('#')[0].split()
            if fields:
                table[fields[0]] = (fields[1], fields[2])
    return table


BACKEND_TABLE = _backend_table()
_SWITCHES = sorted({s for s, _ in BACKEND_TABLE.values() if s != '-'})
BACKEND_CMAKE_OPTIONS = {
    name: [f'-D{s}={"ON" if s == switch else "OFF"}' for s in _SWITCHES]
    for name, (switch, _) in BACKEND_TABLE.items()
}
# The default: every CPU backend.
_CPU_BACKENDS = [n for n, (_, dev) in BACKEND_TABLE.items() if dev == 'cpu']

MODELS = ['resnet50', 'cosmoflow', 'deepcam']

# One RESULT line (drivers/writer_result_lines.c); lookaheads so the order of
# the keys does not matter.
RESULT_RE = (r'^RESULT (?=.*\blayer=(?P<layer>\S+))(?=.*\bvalue=(?P<value>\S+))'
             r'(?=.*\bpct_of_roof=(?P<pct>\S+))(?=.*\bvalid=(?P<valid>\S+))')


def _backends():
    names = os.environ.get('KBENCH_BACKENDS', ','.join(_CPU_BACKENDS)).split(',')
    unknown = [n for n in names if n not in BACKEND_CMAKE_OPTIONS]
    if unknown:
        raise ValueError(f'KBENCH_BACKENDS: unknown backend(s) {unknown}; '
                         f'known: {sorted(BACKEND_CMAKE_OPTIONS)}')
    return names


class KbenchBuild(rfm.CompileOnlyRegressionTest):
    '''kbench with one backend: built with CMake from this source tree, or,
    when kbench_bin (or $KBENCH_BIN) names a binary, that binary unbuilt.'''

    backend = parameter(_backends())
    kbench_bin = variable(str, value=os.environ.get('KBENCH_BIN', ''))
    source_dir = variable(str, value=SOURCE_DIR)
    build_jobs = variable(int, value=2)
    build_system = 'CustomBuild'
    sourcesdir = None

    @run_before('compile')
    def set_build_commands(self):
        if self.kbench_bin:
            self.kbench_bin = os.path.abspath(self.kbench_bin)
            self.build_system.commands = [f'test -x {shlex.quote(self.kbench_bin)}']
        else:
            opts = ' '.join(BACKEND_CMAKE_OPTIONS[self.backend])
            self.build_system.commands = [
                f'cmake -S {shlex.quote(self.source_dir)} -B build '
                f'-DCMAKE_BUILD_TYPE=Release -DCMAKE_C_COMPILER={self.current_environ.cc} {opts}',
                # kb_data stages share/kbench beside the binary, where it looks.
                f'cmake --build build -j{self.build_jobs} --target kbench kb_data',
            ]
        self.postbuild_cmds = [f'{shlex.quote(self.binary)} list backends']

    @property
    def binary(self):
        return self.kbench_bin or os.path.join(self.stagedir, 'build', 'kbench')

    @sanity_function
    def has_backend(self):
        return sn.assert_found(rf'^{re.escape(self.backend)}\s+kind=', self.stdout,
                               msg=f'{self.binary} has no backend {self.backend!r} '
                                   f'(its `list backends` is in {self.stdout})')


@rfm.simple_test
class KbenchModelCheck(rfm.RunOnlyRegressionTest):
    '''One model catalog on one backend: every case must validate, and each
    layer's GFLOP/s (and % of roof, with a ceilings file) is a figure.'''

    model = parameter(MODELS)
    kbench = fixture(KbenchBuild, scope='environment')
    layer = variable(str, value='')      # kbench --layer REGEX; empty: every layer
    kernel = variable(str, value='')     # kbench --kernel LIST; empty: every kernel
    peaks = variable(str, value='')      # a `kbench peaks` file: adds pct_of_roof
    history_db = variable(str, value='') # a `kbench history` database: each run is added
    mb = variable(int, value=1)
    reps = variable(int, value=5)
    min_time = variable(float, value=0.2)
    valid_systems = ['*']
    valid_prog_environs = ['*']
    num_tasks = 1
    exclusive_access = True              # an acceptance run owns its node
    reference = {'$ref': 'references.yaml'}
    tags = {'kbench', 'acceptance'}

    @property
    def backend(self):
        '''The fixture's backend; a key of references.yaml's $index.'''
        return self.kbench.backend

    @property
    def output(self):
        '''kbench's stdout by absolute path: hooks do not run in the stage dir.'''
        return os.path.join(self.stagedir, sn.evaluate(self.stdout))

    @run_after('setup')
    def set_command(self):
        self.executable = shlex.quote(self.kbench.binary)
        opts = ['run', '--model', self.model, '--backend', self.backend,
                '--mb', str(self.mb), '--reps', str(self.reps),
                '--min-time', str(self.min_time), '--result-lines', '--quiet']
        if self.layer:
            opts += ['--layer', self.layer]
        if self.kernel:
            opts += ['--kernel', self.kernel]
        if self.peaks:
            opts += ['--peaks', os.path.abspath(self.peaks)]
        if self.history_db:
            opts += ['--json', 'kbench.jsonl']
        self.executable_opts = [shlex.quote(o) for o in opts]

    # Here, on the host ReFrame runs on, once the job has ended, not in the
    # job script: one process writes the database, which stays on a local
    # disk rather than on a filesystem every node shares (docs/history.md).
    @run_before('sanity')
    def add_to_history(self):
        if not self.history_db:
            return
        add = [self.kbench.binary, 'history', 'add', os.path.join(self.stagedir, 'kbench.jsonl'),
               '--db', os.path.abspath(self.history_db),
               '--tag', f'reframe_test={self.display_name}',
               '--tag', f'reframe_partition={self.current_partition.fullname}']
        done = subprocess.run(add, capture_output=True, text=True)
        if done.returncode != 0:
            raise SanityError(f'kbench history add exited {done.returncode}: '
                              f'{done.stderr.strip() or done.stdout.strip()}')

    # The printed marker decides, since some schedulers lose the exit status
    # (EPCC's Kubernetes one; Slurm without accounting reports none).
    @sanity_function
    def validated(self):
        cases = sn.evaluate(sn.extractall(RESULT_RE, self.stdout, ('layer', 'valid')))
        bad = [f'{layer} valid={valid}' for layer, valid in cases if valid != 'PASS']
        exitcode = self.job.exitcode
        return sn.all([
            sn.assert_found(r'^SUITE_STATUS PASS$', self.stdout,
                            msg=f'no "SUITE_STATUS PASS" line in {self.stdout}'),
            sn.assert_true(cases, msg=f'no RESULT line in {self.stdout}: '
                                      'the selection matched no case'),
            sn.assert_false(bad, msg=f'cases that did not validate: {", ".join(bad)}'),
            sn.assert_true(exitcode in (0, None),
                           msg=f'kbench exited with {exitcode} (see {self.stderr})'),
        ])

    def figure(self, layer, key, unit):
        '''A layer's `key=` value as a ReFrame performance figure.'''
        value = sn.extractsingle(rf'^RESULT (?=.*\blayer={re.escape(layer)}\s)'
                                 rf'(?=.*\b{key}=(?P<v>\S+))', self.output, 'v', float)
        return sn.make_performance_function(value, unit)

    # The layers are known only from the output (the selection is a regex),
    # so the figures are named here, after sanity has read it: <layer>_gflops
    # for every case, <layer>_pct_of_roof when kbench placed it on the roof.
    @run_before('performance')
    def set_perf_variables(self):
        cases = sn.evaluate(sn.extractall(RESULT_RE, self.output, ('layer', 'value', 'pct')))
        self.perf_variables = {}
        for layer, value, pct in cases:
            if value != 'NA':
                self.perf_variables[f'{layer}_gflops'] = self.figure(layer, 'value', 'GFLOP/s')
            if pct != 'NA':
                self.perf_variables[f'{layer}_pct_of_roof'] = self.figure(layer, 'pct_of_roof', '%')
