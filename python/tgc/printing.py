"""tgc.printing: reading a graph (Theano's theano.printing)."""

from . import _tgc


def debugprint(obj, file=None, print_type=False):
    """Prints a compiled function's nodes in execution order (one line each, Theano's
    Elemwise{exp}(x) notation), or a variable's expression; returns the text printed.

    obj: a tgc.Function or a symbolic variable. file: where to print (None: stdout;
    'str': return the text without printing). print_type: add each variable's type.
    """
    if isinstance(obj, _tgc.Function):
        lines = [f"{i} {node}" for i, node in enumerate(obj.toposort())]
    elif isinstance(obj, _tgc.Var):
        lines = [str(obj) + (f" [{obj.type}]" if print_type else "")]
    else:
        raise TypeError(f"debugprint takes a tgc.Function or a variable, got {type(obj).__name__}")
    text = "\n".join(lines)
    if file == "str":
        return text
    print(text, file=file)
    return text


def pydotprint(fct, outfile=None, format="png", stage="optimized"):
    """Draws a compiled function's graph (Theano's theano.printing.pydotprint): ops as
    ellipses, variables as boxes (inputs green, shared variables yellow, constants grey,
    outputs blue), nodes a GPU function runs on the host orange with the reason.

    fct: a tgc.Function. outfile: the file to write (default 'tgc.pydotprint.<format>' in the
    current directory). format: 'dot' writes Graphviz's text itself; any other format ('png',
    'svg', 'pdf', ...) is rendered by Graphviz's `dot` command, which must be on the PATH.
    stage: 'optimized' (as run) or 'raw' (as built). Returns the path written.
    """
    import os
    import shutil
    import subprocess

    if not isinstance(fct, _tgc.Function):
        raise TypeError(f"pydotprint takes a tgc.Function, got {type(fct).__name__}")
    text = fct.graph_dot(stage)
    outfile = outfile or f"tgc.pydotprint.{format}"
    if format == "dot":
        with open(outfile, "w", encoding="utf-8") as f:
            f.write(text)
        return outfile
    dot = shutil.which("dot")
    if dot is None:
        raise _tgc.IOError(f"pydotprint: format '{format}' needs Graphviz's dot command, which is not on the PATH "
                           "(hint: install graphviz, or pass format='dot' to write the graph's text)")
    result = subprocess.run([dot, f"-T{format}", "-o", os.fspath(outfile)], input=text.encode(), capture_output=True)
    if result.returncode != 0:
        raise _tgc.IOError(f"pydotprint: dot -T{format} failed: {result.stderr.decode(errors='replace').strip()}")
    return outfile
