"""A small Wadler/Lindig-style pretty printer (SPEC JXP-1).

Jaxprs are laid out by building a document of text, breaks, nests and groups
and formatting it for a width of 80 columns.  A group prints flat (its breaks
as their text) when the group alone fits in the rest of the line, otherwise
each of its own breaks becomes a newline indented by the enclosing nests.
Only the group itself is measured, not the text after it: that is the rule
JAX's printer follows, and what makes our jaxpr text identical to JAX's.
"""

_FLAT, _BREAK = 0, 1


class Doc:
    __slots__ = ()

    def __add__(self, other):
        return concat([self, other])

    def format(self, width=80):
        return _format(self, width)

    def __str__(self):
        return self.format()


class _Text(Doc):
    __slots__ = ("text",)

    def __init__(self, text):
        self.text = text


class _Concat(Doc):
    __slots__ = ("children",)

    def __init__(self, children):
        self.children = children


class _Break(Doc):
    __slots__ = ("text",)

    def __init__(self, text):
        self.text = text


class _Group(Doc):
    __slots__ = ("child",)

    def __init__(self, child):
        self.child = child


class _Nest(Doc):
    __slots__ = ("n", "child")

    def __init__(self, n, child):
        self.n = n
        self.child = child


_NIL = _Concat(())


def nil():
    return _NIL


def text(s):
    return _Text(s)


def concat(docs):
    docs = list(docs)
    return docs[0] if len(docs) == 1 else _Concat(docs)


def brk(s=" "):
    """A break: ``s`` in a flat group, a newline in a broken one."""
    return _Break(s)


def group(doc):
    return _Group(doc)


def nest(n, doc):
    return _Nest(n, doc)


def join(sep, docs):
    docs = list(docs)
    if not docs:
        return _NIL
    out = [docs[0]]
    for d in docs[1:]:
        out += [sep, d]
    return concat(out)


def _fits(doc, room):
    """Whether ``doc`` printed flat takes at most ``room`` columns."""
    stack = [doc]
    while stack and room >= 0:
        d = stack.pop()
        if isinstance(d, (_Text, _Break)):
            room -= len(d.text)
        elif isinstance(d, _Concat):
            stack.extend(reversed(d.children))
        else:
            stack.append(d.child)
    return room >= 0


def _format(doc, width):
    lines, line, col = [], [], 0
    stack = [(0, _BREAK, doc)]
    while stack:
        indent, mode, d = stack.pop()
        if isinstance(d, _Text):
            line.append(d.text)
            col += len(d.text)
        elif isinstance(d, _Concat):
            stack.extend((indent, mode, c) for c in reversed(d.children))
        elif isinstance(d, _Break):
            if mode == _BREAK:
                lines.append("".join(line))
                line, col = [" " * indent], indent
            else:
                line.append(d.text)
                col += len(d.text)
        elif isinstance(d, _Nest):
            stack.append((indent + d.n, mode, d.child))
        else:  # group
            flat = _fits(d.child, width - col)
            stack.append((indent, _FLAT if flat else _BREAK, d.child))
    lines.append("".join(line))
    return "\n".join(lines)
