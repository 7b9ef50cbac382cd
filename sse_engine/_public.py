"""Public module paths for names defined in private modules and re-exported by a package.

``help(sse_engine.chat)``, tracebacks and reprs name a class by its
``__module__``: without this, users would read ``sse_engine.chat._events.
ChatContentDelta`` and learn an import path we do not promise. Each public
package ends its ``__init__`` with ``publish(__name__)``, which makes the
package the home of the names in its ``__all__`` (and of their private base
classes), so pickles refer to the public path too.

``typing.get_type_hints`` resolves a class's string annotations in the
namespace of the module named by ``__module__``; the public package does not
hold the names those annotations use (``Any``, ``Outcome``, ...), so each
moved class has its own annotations resolved first, where they were written.
"""

from __future__ import annotations

import inspect
import sys
import types
import typing

__all__ = ["publish"]


def publish(package: str) -> None:
    """Make ``package`` the ``__module__`` of the names in its ``__all__``.

    Only names defined in one of the package's private modules
    (``package._x``) move, with the private base classes they inherit from
    there; a name the package merely re-exports from elsewhere keeps its home.
    """
    module = sys.modules[package]
    private = f"{package}._"
    for name in module.__all__:
        value = getattr(module, name)
        if isinstance(value, type):
            # Bases first: a subclass's annotations are resolved through its bases.
            for cls in reversed(value.__mro__):
                if cls.__module__.startswith(private):
                    _move_class(cls, package)
        elif isinstance(value, types.FunctionType) and value.__module__.startswith(private):
            value.__module__ = package


def _move_class(cls: type, package: str) -> None:
    own = inspect.get_annotations(cls)
    if own and any(isinstance(hint, str) for hint in own.values()):
        try:
            hints = typing.get_type_hints(cls, include_extras=True)
        except NameError:
            # A name only imported for type checkers: leave these annotations as
            # strings (tests/test_public_paths.py flags a public class like this).
            pass
        else:
            cls.__annotations__ = {key: hints[key] for key in own}
    cls.__module__ = package
