"""The exceptions of tightdp. Every failure of the package is a :class:`TightdpError` (an ``Exception``)
carrying the command line's one-line message; the class follows the library's error kind (``src/error.rs``):

* :class:`InputError` (a ``ValueError``): a bad argument or file content; :class:`InputTypeError` (also
  a ``TypeError``) when the argument has the wrong type (``n=True``, ``n="3"``);
* :class:`ResourceLimitError` (a ``MemoryError``): the computation would exceed an engine's size or time
  limits (the library refuses it up front rather than exhausting memory);
* :class:`FileError` (an ``OSError``, with ``errno`` and ``filename``): a file cannot be read;
* :class:`InternalError`: a bug in tightdp (please report it), including any Rust panic;
* :class:`UndecidedError` (a ``ValueError``): comparing or rounding a :class:`Certified` bracket that
  holds the value compared with (ask for more digits).

Ctrl-C during a computation raises ``KeyboardInterrupt`` as usual (the computation stops).
"""


class TightdpError(Exception):
    """Base class of every tightdp failure."""


class InputError(TightdpError, ValueError):
    """A bad argument or input file content (the CLI's exit-2 errors)."""


class InputTypeError(InputError, TypeError):
    """An argument of the wrong type."""


class ResourceLimitError(TightdpError, MemoryError):
    """The computation would exceed an engine's size or time limits."""


class FileError(TightdpError, OSError):
    """A file cannot be read (``errno`` and ``filename`` say which and why)."""

    def __str__(self):
        # the CLI's one-line message, not OSError's "[Errno 2] ..." form
        return str(self.args[0]) if self.args else super().__str__()


class UndecidedError(TightdpError, ValueError):
    """A comparison or rounding of a :class:`Certified` bracket that the bracket does not decide (the
    value compared with lies inside it): ask for more digits."""


class InternalError(TightdpError):
    """An internal error of tightdp (a bug: please report it)."""


def file_error(msg, errno, filename):
    """A FileError with the CLI's message as its text and the OS's errno and the file name attached."""
    e = FileError(msg)
    e.errno = errno
    e.strerror = msg
    e.filename = filename
    return e
