"""Whose exception is it: SGLang's code, or the harness's own?

An exception that reaches the harness's top level (or a scheduler call) was
raised either by SGLang's real code (a KeyError in check_status, an
"Unexpected poll state" RuntimeError, an assertion in the transfer worker)
or by the harness itself (a step it refused, a fake that met a call it does
not know, a bug). The two must never be confused: the first is a finding
about SGLang, the second is not. The raise site decides: the innermost frame
of the traceback that lies in SGLang's source tree or in this package
(frames of the standard library in between are skipped: a KeyError raised by
a dict lookup in SGLang's code has SGLang's frame innermost).
"""

import os
import traceback

HARNESS = os.path.dirname(os.path.abspath(__file__))


def _inside(path, folder):
    path, folder = os.path.abspath(path), os.path.abspath(folder)
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


def raise_site(exc, root):
    """("sglang", "sglang/srt/.../file.py:LINE") when SGLang's code under
    root raised exc, ("harness", "roomspec_sglang/file.py:LINE") when the
    harness did, (None, "") when no frame of either is on its traceback."""
    frames = traceback.extract_tb(exc.__traceback__)
    for fr in reversed(frames):
        if root and _inside(fr.filename, root):
            return "sglang", f"{os.path.relpath(fr.filename, root)}:{fr.lineno}"
        if _inside(fr.filename, HARNESS):
            return "harness", f"roomspec_sglang/{os.path.relpath(fr.filename, HARNESS)}:{fr.lineno}"
    return None, ""


def describe(exc, root):
    """One line naming exc and who raised it, where."""
    who, where = raise_site(exc, root)
    what = f"{type(exc).__name__}: {exc}"
    if who == "sglang":
        return f"SGLang's code raised {what} (at {where})"
    if who == "harness":
        return f"the harness's own code raised {what} (at {where}); this is not SGLang's exception"
    return f"{what} (raised outside SGLang's code and the harness)"
