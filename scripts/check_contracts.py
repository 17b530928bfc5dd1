#!/usr/bin/env python3
"""Every public function of strata has its contract comment: each function declared in include/strata/*.h must
have a comment on the line(s) right above it or on its own lines; only a destructor (*_destroy, *_free,
*_close) declared right below its commented constructor may go without. Prints each function without one and
exits 1 when there is any.
Usage: check_contracts.py [INCLUDE_DIR] (default: include/strata beside this script's folder)."""
import os
import re
import sys

# A declaration begins at column 0 with a return type and names an st_ function; typedefs and macros are not.
# Every *_create has a *_destroy (DESIGN.md): one declared right after its commented constructor needs no comment.
RELEASE = re.compile(r'_(destroy|free|close)$')
DECL = re.compile(r'^(?!typedef\b|#|extern\s+"C")[A-Za-z_][\w \t\*]*?\b(st_\w+)\s*\(')


def strip_comments(lines):
    """Per line: the code outside comments, and whether the line holds (part of) a comment."""
    out, in_comment = [], False
    for line in lines:
        code, has_comment, i = [], in_comment, 0
        while i < len(line):
            if in_comment:
                end = line.find('*/', i)
                if end < 0:
                    i = len(line)
                else:
                    in_comment, i = False, end + 2
            elif line.startswith('/*', i):
                in_comment, has_comment, i = True, True, i + 2
            elif line.startswith('//', i):
                has_comment, i = True, len(line)
            else:
                code.append(line[i])
                i += 1
        out.append((''.join(code), has_comment))
    return out


def check(path):
    return check_text(open(path, encoding='utf-8').read())


def check_text(text):
    lines = text.split('\n')
    parsed = strip_comments(lines)
    missing = []
    depth = 0            # brace depth: declarations only at file scope
    covered = False      # the block of declarations above is headed by a comment
    i = 0
    while i < len(lines):
        code, has_comment = parsed[i]
        m = DECL.match(code) if depth == 0 else None
        if m:
            # the whole declaration: up to its ';' or the '{' of an inline definition
            j, text, comment_here = i, code, has_comment
            while ';' not in text and '{' not in text and j + 1 < len(lines):
                j += 1
                text += parsed[j][0]
                comment_here |= parsed[j][1]
            above = parsed[i - 1] if i > 0 else ('', False)
            # its own comment, or (the one convention) a destructor in the block its commented constructor heads
            ok = comment_here or (above[1] and not above[0].strip()) or (covered and RELEASE.search(m.group(1)))
            if not ok:
                missing.append((i + 1, m.group(1)))
            covered = ok
            # an inline definition: skip its body
            depth += text.count('{') - text.count('}')
            while depth > 0 and j + 1 < len(lines):
                j += 1
                depth += parsed[j][0].count('{') - parsed[j][0].count('}')
            i = j + 1
            continue
        depth += code.count('{') - code.count('}')
        stripped = code.strip()
        if not stripped and not has_comment:
            covered = False  # a blank line ends a block
        elif stripped:
            covered = False  # any other code (a type, a macro) ends it too
        i += 1
    return missing


# The rule on small cases, run before every check so that the check itself is known to catch a missing comment.
SELF_TEST = (
    ('/* ok */\nint st_a(void);\n', []),
    ('int st_b(void);\n', ['st_b']),
    ('int st_c(void); /* trailing */\n', []),
    ('/* made */\nst_result st_x_create(int **o);\nvoid st_x_destroy(int *x);\nint st_x_size(int *x);\n',
     ['st_x_size']),
    ('st_result st_y_create(int **o);\nvoid st_y_destroy(int *y);\n', ['st_y_create', 'st_y_destroy']),
    ('/* two\n * lines */\nst_result st_d(int a,\n              int b);\nint st_e(void);\n', ['st_e']),
    ('/* inline */\nstatic inline int st_f(int v) {\n    return v;\n}\nstatic inline int st_g(int v) { return v; }\n',
     ['st_g']),
    ('typedef struct s {\n    int (*st_h)(void);\n} s;\ntypedef void (*st_i)(int);\n#define st_j(x) (x)\n', []),
    ('/* ok */\n\nint st_k(void);\n', ['st_k']),
)


def self_test():
    for text, want in SELF_TEST:
        got = [name for _, name in check_text(text)]
        if got != want:
            print(f'check_contracts: self-test failed on {text!r}: {got} instead of {want}', file=sys.stderr)
            return False
    return True


def main():
    if not self_test():
        return 1
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'include', 'strata')
    root = os.path.normpath(root)
    headers = sorted(f for f in os.listdir(root) if f.endswith('.h'))
    if not headers:
        print(f'check_contracts: no headers in {root}', file=sys.stderr)
        return 1
    bad = 0
    for h in headers:
        for line, name in check(os.path.join(root, h)):
            print(f'{os.path.join(root, h)}:{line}: {name} has no contract comment above it')
            bad += 1
    if bad:
        print(f'check_contracts: {bad} public functions without a contract comment', file=sys.stderr)
        return 1
    print(f'check_contracts: every public function in {len(headers)} headers has its contract comment')
    return 0


if __name__ == '__main__':
    sys.exit(main())
