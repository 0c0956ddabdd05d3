"""devstack's local.conf meta-sections, and an ini editor that keeps
comments.

    localconf.py localrc LOCAL_CONF
        print the [[local|localrc]] section (shell assignments)
    localconf.py post-config LOCAL_CONF
        merge every [[post-config|FILE]] section into FILE; FILE is
        expanded with the environment ($NOVA_LITE_CONF, ...), and
        $NOVA_LITE_CPU_CONF stands for every compute file named in
        $NL_COMPUTE_CONFS (space separated). Files that do not exist on
        this node are left alone and said so.
    localconf.py iniset FILE SECTION OPTION VALUE

Only the standard library: stack.sh runs it with any python3.
"""

import os
import re
import sys

META = re.compile(r'^\[\[\s*([^|\]]+?)\s*\|\s*([^\]]+?)\s*\]\]\s*$')
SECTION = re.compile(r'^\s*\[\s*([^\]]+?)\s*\]\s*$')
OPTION = re.compile(r'^\s*([^#;\s=][^=]*?)\s*=\s?(.*)$')
CPU_CONF = '$NOVA_LITE_CPU_CONF'


def meta_sections(path):
    """[(phase, file expression, [lines])] in file order."""
    sections = []
    current = None
    with open(path) as f:
        for line in f:
            line = line.rstrip('\n')
            match = META.match(line)
            if match:
                current = (match.group(1), match.group(2), [])
                sections.append(current)
            elif current is not None:
                current[2].append(line)
    return sections


def parse_ini(lines):
    """{section: [(option, value)]} of an ini snippet, in order."""
    result = {}
    section = 'DEFAULT'
    for line in lines:
        match = SECTION.match(line)
        if match:
            section = match.group(1)
            result.setdefault(section, [])
            continue
        match = OPTION.match(line)
        if match:
            result.setdefault(section, []).append(
                (match.group(1), match.group(2).strip()))
    return result


def merge(lines, snippet):
    """``lines`` (a file) with every option of ``snippet`` set: an
    option already there is replaced in place (all its lines, for a
    multi-valued one), a new one goes after the last option of its
    section, a new section at the end. Comments and order are kept."""
    lines = list(lines)
    for section, options in snippet.items():
        values = {}
        for option, value in options:
            values.setdefault(option, []).append(value)
        for option, vals in values.items():
            lines = _set(lines, section, option, vals)
    return lines


def _section_range(lines, section):
    start = None
    for i, line in enumerate(lines):
        match = SECTION.match(line)
        if match:
            if start is not None:
                return start, i
            if match.group(1) == section:
                start = i
    if start is not None:
        return start, len(lines)
    return None


def _set(lines, section, option, values):
    new = ['%s = %s' % (option, v) for v in values]
    found = _section_range(lines, section)
    if found is None:
        if lines and lines[-1].strip():
            lines.append('')
        return lines + ['[%s]' % section] + new
    start, end = found
    body = lines[start + 1:end]
    hits = [i for i, line in enumerate(body)
            if (OPTION.match(line) and
                OPTION.match(line).group(1) == option)]
    if hits:
        first = hits[0]
        kept = [line for i, line in enumerate(body) if i not in hits[1:]]
        kept[first:first + 1] = new
        body = kept
    else:
        last = max([i for i, line in enumerate(body) if OPTION.match(line)],
                   default=-1)
        body[last + 1:last + 1] = new
    return lines[:start + 1] + body + lines[end:]


def merge_file(path, snippet):
    with open(path) as f:
        lines = f.read().splitlines()
    lines = merge(lines, snippet)
    with open(path + '.new', 'w') as f:
        f.write('\n'.join(lines) + '\n')
    os.replace(path + '.new', path)


def post_config(local_conf):
    computes = os.environ.get('NL_COMPUTE_CONFS', '').split()
    for phase, expr, body in meta_sections(local_conf):
        if phase != 'post-config':
            continue
        snippet = parse_ini(body)
        if expr.strip() in (CPU_CONF, '${NOVA_LITE_CPU_CONF}'):
            targets = computes
            if not targets:
                print('[nova-lite] post-config %s: no compute on this node'
                      % expr)
        else:
            targets = [os.path.expandvars(expr)]
        for target in targets:
            if not os.path.isfile(target):
                print('[nova-lite] post-config %s: %s is not on this node '
                      '(left alone)' % (expr, target))
                continue
            merge_file(target, snippet)
            names = ', '.join('[%s] %s' % (s, o) for s, opts in
                              snippet.items() for o, _ in opts)
            print('[nova-lite] post-config %s: %s' % (target, names))


def main(argv):
    if len(argv) == 2 and argv[0] == 'localrc':
        for phase, expr, body in meta_sections(argv[1]):
            if phase == 'local' and expr == 'localrc':
                print('\n'.join(body))
        return 0
    if len(argv) == 2 and argv[0] == 'post-config':
        post_config(argv[1])
        return 0
    if len(argv) == 5 and argv[0] == 'iniset':
        merge_file(argv[1], {argv[2]: [(argv[3], argv[4])]})
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
