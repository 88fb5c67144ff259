#!/usr/bin/env python3
"""mpiwrap/gen_wrappers.py - expand wrappers.w into the PMPI wrappers.

Usage: gen_wrappers.py TEMPLATE OUTDIR [--no-fortran]

Writes OUTDIR/mpiwrap/fn.h, OUTDIR/mpiwrap/classes.h and OUTDIR/wrappers.c
(see the comment at the top of wrappers.w).  Pure Python 3, no dependencies.
Fails with a message naming the template line on any error.
"""
import os
import re
import sys


class TemplateError(Exception):
    pass


class Param:
    def __init__(self, text, lineno):
        ann = ''
        m = re.search(r'/\*\s*(.*?)\s*\*/\s*$', text)
        if m:
            ann = m.group(1)
            text = text[:m.start()].strip()
        m = re.match(r'^(?P<type>.*?[\s\*])(?P<name>\w+)\s*(?P<arr>\[\s*\])?$', text.strip())
        if not m:
            raise TemplateError('line %d: cannot parse parameter %r' % (lineno, text))
        self.ctype = re.sub(r'\s+', ' ', m.group('type').strip())
        self.ctype = re.sub(r'\s*\*', ' *', self.ctype).replace('* *', '**').replace('* *', '**')
        self.name = m.group('name')
        self.array = bool(m.group('arr'))
        self.ann = ann
        base = self.ctype.replace('const ', '')
        self.base = base.replace(' *', '*').replace(' ', '')

    def decl(self):
        return '%s %s%s' % (self.ctype, self.name, '[]' if self.array else '')


class Fn:
    def __init__(self, cls, fortran, ret, name, params, lineno, cond=None):
        self.cond = cond
        self.cls = cls
        self.fortran = fortran
        self.ret = ret
        self.name = name
        self.params = params
        self.lineno = lineno

    @property
    def int_name(self):
        """The int-count function of a large-count one: MPI_Send_c -> MPI_Send."""
        if not self.name.endswith('_c'):
            raise TemplateError('line %d: {{pmpi_int}} in %s, not a large-count function'
                                % (self.lineno, self.name))
        return self.name[:-2]

    @property
    def id(self):
        return 'HP_FN_' + self.name

    def cdecl(self):
        return ', '.join(p.decl() for p in self.params) if self.params else 'void'

    def args(self):
        return ', '.join(p.name for p in self.params)


def parse(path):
    classes, fns = {}, []
    lines = open(path).read().split('\n')
    i = 0
    while i < len(lines):
        line = lines[i]
        lineno = i + 1
        i += 1
        if not line.strip() or line.lstrip().startswith('#'):
            continue
        if line.startswith('%class'):
            words = line.split()
            if len(words) < 2:
                raise TemplateError('line %d: %%class needs a name' % lineno)
            name, raw = words[1], 'raw' in words[2:]
            body = []
            while i < len(lines) and lines[i].strip() != '%end':
                body.append(lines[i])
                i += 1
            if i == len(lines):
                raise TemplateError('line %d: %%class %s has no %%end' % (lineno, name))
            i += 1
            if name in classes:
                raise TemplateError('line %d: class %s defined twice' % (lineno, name))
            classes[name] = (raw, body, lineno)
            continue
        if line.startswith('%fn'):
            m = re.match(r'^%fn\s+(\w+)\s+(nofortran\s+)?(?:if=(\w+)\s+)?(int)\s+(MPI_\w+)\s*\((.*)\)\s*$',
                         line)
            if not m:
                raise TemplateError('line %d: cannot parse %r' % (lineno, line))
            cls, nofort, cond, ret, name, ptext = m.groups()
            params = []
            if ptext.strip() != 'void':
                depth, cur = 0, ''
                for ch in ptext:
                    if ch == ',' and depth == 0:
                        params.append(Param(cur, lineno))
                        cur = ''
                        continue
                    depth += ch in '([{'
                    depth -= ch in ')]}'
                    cur += ch
                if cur.strip():
                    params.append(Param(cur, lineno))
            fns.append(Fn(cls, not nofort, ret, name, params, lineno, cond))
            continue
        raise TemplateError('line %d: unexpected %r' % (lineno, line))
    names = set()
    for f in fns:
        if f.cls not in classes:
            raise TemplateError('line %d: %s uses unknown class %s' % (f.lineno, f.name, f.cls))
        if f.name in names:
            raise TemplateError('line %d: %s wrapped twice' % (f.lineno, f.name))
        names.add(f.name)
    # the functions of one class share one implementation: same parameter types
    by_cls = {}
    for f in fns:
        sig = [p.ctype + ('[]' if p.array else '') for p in f.params]
        if f.cls in by_cls and by_cls[f.cls][0] != sig:
            raise TemplateError('line %d: %s does not have the parameters of class %s (line %d)'
                                % (f.lineno, f.name, f.cls, by_cls[f.cls][1]))
        by_cls.setdefault(f.cls, (sig, f.lineno))
    return classes, fns


TWIN_CLASS = {}  # function name -> its class (for {{twin}})


def expand(body, f):
    out = []
    for line in body:
        if '{{twin}}' in line:
            if f.int_name not in TWIN_CLASS:
                raise TemplateError('line %d: {{twin}}: %s is not wrapped' % (f.lineno, f.int_name))
            line = line.replace('{{twin}}', 'hp_w_' + TWIN_CLASS[f.int_name])
        if '{{pmpi_int}}' in line:
            line = line.replace('{{pmpi_int}}', 'P' + f.int_name)
        # the next tool's MPI_X or PMPI_X (next.c), as the entry point says
        line = (line.replace('{{pmpi}}', 'next')
                .replace('{{args}}', f.args())
                .replace('{{id}}', f.id)
                .replace('{{name}}', f.name))
        line = re.sub(r',\s*\)', ')', line)  # {{args}} of a function without parameters
        if '{{' in line:
            raise TemplateError('line %d: unknown placeholder in %r' % (f.lineno, line))
        out.append(line)
    return out


HANDLES = {
    'MPI_Comm': 'Comm', 'MPI_Datatype': 'Type', 'MPI_Op': 'Op', 'MPI_Group': 'Group',
    'MPI_Info': 'Info', 'MPI_Message': 'Message', 'MPI_Request': 'Request', 'MPI_Win': 'Win',
    'MPI_File': 'File',
}
# Scalars that Fortran passes as INTEGER(KIND=MPI_ADDRESS_KIND) or
# INTEGER(KIND=MPI_OFFSET_KIND), by reference: the same bytes as the C type
WIDE_SCALARS = ('MPI_Aint', 'MPI_Offset')


def fortran(f):
    """The Fortran entry point of f: parameters, conversions before, the call, after."""
    fparams, pre, args, post = [], [], [], []
    heap, lens = [], []  # converted arrays and strings on the heap; strings' lengths
    for p in f.params:
        n, b, ann = p.name, p.base, p.ann
        if ann == 'drop':
            args.append('NULL')
            continue
        if ann == 'detach':
            fparams.append('void *%s' % n)
            pre.append('void *c_%s = NULL;' % n)
            args.append('&c_%s' % n)
            continue
        if b in ('void*',):
            fparams.append('void *%s' % n)
            args.append('hp_fbuf(%s)' % n)
        elif b in WIDE_SCALARS and not p.array:
            fparams.append('%s *%s' % (b, n))
            args.append('*%s' % n)
        elif b in WIDE_SCALARS:
            fparams.append('%s *%s' % (b, n))
            args.append(n)
        elif b == 'char*' and ann == 'fstring':
            # CHARACTER(LEN=*): blank-padded, its length passed after every
            # argument (gfortran: size_t), in the order of the strings
            fparams.append('char *%s' % n)
            lens.append('size_t %s_len' % n)
            pre.append('char *c_%s = hp_fstring(%s, %s_len);' % (n, n, n))
            pre.append('if (!c_%s) {\n\t\t%sif (ierr)\n\t\t\t*ierr = MPI_ERR_NO_MEM;\n\t\treturn;\n\t}'
                       % (n, ''.join('free(c_%s);\n\t\t' % t for t in heap)))
            heap.append(n)
            args.append('c_%s' % n)
            post.append('free(c_%s);' % n)
        elif b == 'int' and not p.array:
            fparams.append('MPI_Fint *%s' % n)
            args.append('(*%s != 0)' % n if ann == 'logical' else '(int)*%s' % n)
        elif b == 'int*' and not p.array:
            fparams.append('MPI_Fint *%s' % n)
            if ann == 'logical':
                pre.append('int c_%s = 0;' % n)
                args.append('&c_%s' % n)
                post.append('*%s = c_%s ? HP_F_TRUE : 0;' % (n, n))
            elif ann == 'index':
                pre.append('int c_%s = MPI_UNDEFINED;' % n)
                args.append('&c_%s' % n)
                post.append('*%s = (rc == MPI_SUCCESS && c_%s >= 0) ? c_%s + 1 : c_%s;' % (n, n, n, n))
            else:
                args.append(n)
        elif b == 'int' and p.array:
            fparams.append('MPI_Fint *%s' % n)
            args.append(n)
            if ann.startswith('indices:'):
                cnt = ann.split(':', 1)[1]
                post.append('if (rc == MPI_SUCCESS && (%s) != MPI_UNDEFINED)\n\t\tfor (int i = 0; i < (%s); i++)\n\t\t\t%s[i] += 1;'
                            % (cnt, cnt, n))
        elif b in HANDLES and not p.array:
            fparams.append('MPI_Fint *%s' % n)
            args.append('MPI_%s_f2c(*%s)' % (HANDLES[b], n))
        elif b.endswith('*') and b[:-1] in HANDLES and not p.array:
            h = HANDLES[b[:-1]]
            fparams.append('MPI_Fint *%s' % n)
            if ann == 'inout':
                pre.append('%s c_%s = MPI_%s_f2c(*%s);' % (b[:-1], n, h, n))
                post.append('*%s = MPI_%s_c2f(c_%s);' % (n, h, n))
            else:
                pre.append('%s c_%s = %s_NULL;' % (b[:-1], n, 'MPI_' + {
                    'Comm': 'COMM', 'Type': 'DATATYPE', 'Op': 'OP', 'Group': 'GROUP',
                    'Info': 'INFO', 'Message': 'MESSAGE', 'Request': 'REQUEST', 'Win': 'WIN',
                    'File': 'FILE'}[h]))
                post.append('if (rc == MPI_SUCCESS)\n\t\t*%s = MPI_%s_c2f(c_%s);' % (n, h, n))
            args.append('&c_%s' % n)
        elif b == 'MPI_Request' and p.array:
            cnt = ann.split(':', 1)[1] if ann.startswith('n:') else None
            if not cnt:
                raise TemplateError('line %d: %s needs /*n:COUNT*/' % (f.lineno, n))
            fparams.append('MPI_Fint *%s' % n)
            pre.append('MPI_Request *c_%s = hp_freqs_in(%s, %s);' % (n, n, cnt))
            pre.append('if (!c_%s) {\n\t\tif (ierr)\n\t\t\t*ierr = MPI_ERR_NO_MEM;\n\t\treturn;\n\t}' % n)
            args.append('c_%s' % n)
            post.append('hp_freqs_out(%s, c_%s, %s);' % (n, n, cnt))
        elif b == 'MPI_Datatype' and p.array:
            # /*types:COMM*/ or /*types:COMM+SENDBUF*/: one handle per member of
            # COMM (its remote group if an intercommunicator); none read when
            # SENDBUF is MPI_IN_PLACE, as Open MPI's own bindings do.
            # /*types:COMM/out*/, /*types:COMM/in*/: one per neighbour of
            # COMM's topology, out- or in-degree (neighbourhood collectives)
            if not ann.startswith('types:'):
                raise TemplateError('line %d: %s needs /*types:COMM[+SENDBUF]*/' % (f.lineno, n))
            spec = ann.split(':', 1)[1].split('+')
            inplace = ('hp_fbuf(%s) == MPI_IN_PLACE' % spec[1]) if len(spec) > 1 else '0'
            comm, _, nbr = spec[0].partition('/')
            if nbr not in ('', 'in', 'out'):
                raise TemplateError('line %d: %s: /%s is neither /in nor /out' % (f.lineno, n, nbr))
            count = ('hp_fcomm_nbrs(MPI_Comm_f2c(*%s), %d)' % (comm, nbr == 'out') if nbr
                     else 'hp_fcomm_peers(MPI_Comm_f2c(*%s))' % comm)
            fparams.append('MPI_Fint *%s' % n)
            pre.append('MPI_Datatype *c_%s = (%s) ? NULL : hp_ftypes_in(%s, %s);'
                       % (n, inplace, n, count))
            pre.append('if (!c_%s && !(%s)) {\n\t\t%sif (ierr)\n\t\t\t*ierr = MPI_ERR_NO_MEM;\n\t\treturn;\n\t}'
                       % (n, inplace, ''.join('free(c_%s);\n\t\t' % t for t in heap)))
            heap.append(n)
            args.append('c_%s' % n)
            post.append('free(c_%s);' % n)
        elif b == 'MPI_Status*' and not p.array:
            fparams.append('MPI_Fint *%s' % n)
            pre.append('MPI_Status c_%s_s;' % n)
            pre.append('MPI_Status *c_%s = hp_fstatus_ignored(%s) ? MPI_STATUS_IGNORE : &c_%s_s;'
                       % (n, n, n))
            # Open MPI's bindings hand the Fortran status itself to MPI, so
            # fields MPI does not set (MPI_ERROR outside MPI_ERR_IN_STATUS)
            # keep the caller's values: start from them
            pre.append('if (c_%s != MPI_STATUS_IGNORE)\n\t\tMPI_Status_f2c(%s, c_%s);' % (n, n, n))
            args.append('c_%s' % n)
            post.append('if (c_%s != MPI_STATUS_IGNORE)\n\t\tMPI_Status_c2f(c_%s, %s);' % (n, n, n))
        elif b == 'MPI_Status' and p.array:
            cnt = ann.split(':', 1)[1] if ann.startswith('n:') else None
            if not cnt:
                raise TemplateError('line %d: %s needs /*n:COUNT*/' % (f.lineno, n))
            fparams.append('MPI_Fint *%s' % n)
            pre.append('int c_%s_ign = hp_fstatuses_ignored(%s);' % (n, n))
            pre.append('MPI_Status *c_%s = c_%s_ign ? MPI_STATUSES_IGNORE : hp_fstatuses_in(%s, %s);'
                       % (n, n, n, cnt))
            pre.append('if (!c_%s_ign && !c_%s) {\n\t\tif (ierr)\n\t\t\t*ierr = MPI_ERR_NO_MEM;\n\t\treturn;\n\t}' % (n, n))
            args.append('c_%s' % n)
            post.append('if (!c_%s_ign)\n\t\thp_fstatuses_out(%s, c_%s, %s);' % (n, n, n, cnt))
        else:
            raise TemplateError('line %d: no Fortran conversion for %s %s' % (f.lineno, p.ctype, n))
    fparams.append('MPI_Fint *ierr')
    return fparams + lens, pre, args, post


HEADER = '''/* Generated by mpiwrap/gen_wrappers.py from mpiwrap/wrappers.w: do not edit. */
'''


def write_if_changed(path, text):
    if os.path.exists(path) and open(path).read() == text:
        return
    with open(path + '.tmp', 'w') as fh:
        fh.write(text)
    os.replace(path + '.tmp', path)


def main(argv):
    if len(argv) < 3:
        sys.stderr.write('usage: gen_wrappers.py TEMPLATE OUTDIR [--no-fortran]\n')
        return 2
    tpl, outdir = argv[1], argv[2]
    with_fortran = '--no-fortran' not in argv[3:]
    try:
        classes, fns = parse(tpl)
        TWIN_CLASS.update((f.name, f.cls) for f in fns)
        os.makedirs(os.path.join(outdir, 'mpiwrap'), exist_ok=True)

        # fn.h
        h = [HEADER, '#ifndef HYPROF_MPIWRAP_FN_H', '#define HYPROF_MPIWRAP_FN_H', '',
             'enum hp_mpi_fn {']
        for f in fns:
            h.append('\t%s,' % f.id)
        h += ['\tHP_FN_COUNT', '};', '',
              '/* "MPI_Send", ... indexed by enum hp_mpi_fn. */',
              'extern const char *const hp_mpi_fn_names[HP_FN_COUNT];', '', '#endif', '']
        write_if_changed(os.path.join(outdir, 'mpiwrap', 'fn.h'), '\n'.join(h))

        # classes.h: one prototype per class implementation
        h = [HEADER, '#ifndef HYPROF_MPIWRAP_CLASSES_H', '#define HYPROF_MPIWRAP_CLASSES_H', '',
             '#include "mpiwrap/mpiwrap.h"', '']
        seen = set()
        for f in fns:
            if f.cls in seen:
                continue
            seen.add(f.cls)
            raw, body, _ = classes[f.cls]
            first = 'void *ra' if raw else 'struct hp_call *c'
            # a large-count class calls the int-count PMPI function
            pname = f.int_name if any('{{pmpi_int}}' in b for b in body) else f.name
            params = ', '.join([first, '__typeof__(&P%s) pmpi' % pname] +
                               [p.decl() for p in f.params])
            if f.cond:
                h.append('#if defined(%s)' % f.cond)
            h.append('int hp_w_%s(%s);' % (f.cls, params))
            if f.cond:
                h.append('#endif')
        h += ['', '#endif', '']
        write_if_changed(os.path.join(outdir, 'mpiwrap', 'classes.h'), '\n'.join(h))

        # wrappers.c
        c = [HEADER,
             '/* Every MPI entry point hyprof intercepts, C and Fortran.  Runs in the',
             ' * thread that called MPI; never in a signal handler. */',
             '#include <mpi.h>', '#include <stdlib.h>', '',
             '#include "mpiwrap/classes.h"', '#include "mpiwrap/fortran.h"', '',
             'const char *const hp_mpi_fn_names[HP_FN_COUNT] = {']
        for f in fns:
            c.append('\t[%s] = "%s",' % (f.id, f.name))
        c += ['};', '']
        for f in fns:
            raw, body, _ = classes[f.cls]
            if f.cond:
                c.append('#if defined(%s)' % f.cond)
            # next: what the call goes to, the next tool's MPI_X from C
            # (HP_NEXT), PMPI_X from Fortran (below)
            params = 'void *ra, __typeof__(&P%s) next' % f.name + (', ' + f.cdecl() if f.params else '')
            c.append('static __typeof__(&P%s) hp_next_%s;' % (f.name, f.name))
            c.append('static inline __attribute__((always_inline)) int hpw_%s(%s)' % (f.name, params))
            c.append('{')
            if raw:
                c += expand(body, f)
            else:
                c += ['\tstruct hp_call c;',
                      '\tif (!hp_call_enter(&c, %s, ra))' % f.id,
                      '\t\treturn next(%s);' % f.args(),
                      '\tint rc;']
                c += expand(body, f)
                c += ['\thp_call_leave(&c);', '\treturn rc;']
            c += ['}', '']
            c.append('HP_MPI_API int %s(%s)' % (f.name, f.cdecl()))
            c.append('{')
            c.append('\treturn hpw_%s(__builtin_return_address(0), HP_NEXT(%s)%s);'
                     % (f.name, f.name, (', ' + f.args()) if f.params else ''))
            c += ['}', '']
            if not (with_fortran and f.fortran):
                if f.cond:
                    c += ['#endif', '']
                continue
            fparams, pre, args, post = fortran(f)
            lname = f.name.lower()
            fname = 'hp_f_' + f.name[4:]
            # Open MPI's sentinels and bindings (fortran.h); other MPIs: C only
            c.append('#if defined(OPEN_MPI)')
            c.append('static void %s(%s)' % (fname, ', '.join(fparams)))
            c.append('{')
            for line in pre:
                c.append('\t' + line)
            # Open MPI's own Fortran bindings call PMPI_X: a C tool's MPI_X
            # does not see Fortran calls, under hyprof neither
            c.append('\tint rc = hpw_%s(__builtin_return_address(0), P%s%s);'
                     % (f.name, f.name, (', ' + ', '.join(args)) if args else ''))
            for line in post:
                c.append('\t' + line)
            c += ['\tif (ierr)', '\t\t*ierr = (MPI_Fint)rc;', '}']
            for alias in (lname, lname + '_', lname + '__', f.name.upper(), lname + '_f08_'):
                c.append('HP_FORTRAN_ALIAS(%s, %s);' % (fname, alias))
            c.append('#endif')
            if f.cond:
                c.append('#endif')
            c.append('')
        write_if_changed(os.path.join(outdir, 'wrappers.c'), '\n'.join(c))
    except TemplateError as e:
        sys.stderr.write('%s: %s\n' % (tpl, e))
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
