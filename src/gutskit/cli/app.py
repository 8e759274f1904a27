"""The ``guts`` command line (typer + rich): the command group and its registry.

One module per command group, each registering its commands here (:func:`build`):

* :mod:`gutskit.cli.play`: ``play`` (you against bots in the terminal) and ``history``
  (saved sessions); the game itself is :mod:`gutskit.cli.terminal`;
* :mod:`gutskit.cli.companion`: ``companion`` (the chips of a real table; the loop is
  :mod:`gutskit.cli.companion_loop`);
* :mod:`gutskit.cli.sim`: ``sim`` (bots only);
* :mod:`gutskit.cli.table`: ``compare``, ``referee``, ``rules`` (tools for a real table);
* :mod:`gutskit.cli.strategy`: ``odds``, ``solve``, ``advise``;
* :mod:`gutskit.cli.tournament`: ``tournament``; :mod:`gutskit.cli.analysis`: ``analyze``;
* :mod:`gutskit.cli.serve`: ``serve``, ``verify``.

Imports point one way: this module imports the command modules; they import only
:mod:`gutskit.cli.options` and :mod:`gutskit.cli.errors`, never this module. The command
modules import typer alone at the top; everything heavy (the engine, numpy, scipy,
SQLAlchemy, matplotlib, the server) is imported inside the command that needs it, so
``guts --help`` starts at once.

User mistakes never show a traceback: :class:`GutsGroup` turns every
:class:`~gutskit.core.errors.GutsError`, OSError and bad parameter into one line
``error: <message>`` on stderr and exit status 2.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Annotated, Any

import typer
from typer.core import TyperArgument, TyperCommand, TyperGroup, TyperOption

from gutskit.cli import (
    analysis,
    companion,
    interrupted,
    play,
    serve,
    sim,
    strategy,
    table,
    tournament,
)
from gutskit.cli.errors import (
    CLICK_EXCEPTION,
    DB_FROM_ENVIRONMENT,
    DB_GIVEN,
    EXIT_USER_ERROR,
    FROM_ENVIRONMENT,
    USER_ERRORS,
    guard_numbers,
    guard_paths,
    report_error,
)

__all__ = ["GutsGroup", "app", "build", "main"]


class _Interrupted(BaseException):
    """Ctrl-C inside a command (typer would turn a KeyboardInterrupt into a silent exit)."""


class GutsGroup(TyperGroup):
    """The ``guts`` command group: runs a command and reports user errors as one line, and
    Ctrl-C as ``interrupted (Ctrl-C)`` with exit status 130."""

    def invoke(self, ctx: Any) -> Any:
        try:
            return super().invoke(ctx)
        except KeyboardInterrupt:
            raise _Interrupted from None

    def main(self, args: Sequence[str] | None = None, prog_name: str | None = None,
             complete_var: str | None = None, standalone_mode: bool = True,
             windows_expand_args: bool = True, **extra: Any) -> Any:
        DB_FROM_ENVIRONMENT.set(None)  # set again by --db's callback (in-process reruns)
        DB_GIVEN.set(None)
        FROM_ENVIRONMENT.set(frozenset())  # as DB_FROM_ENVIRONMENT, for --loop, --redis
        guard_numbers(self)  # "1_0" is not 10
        guard_paths(self)  # "" is not the folder "."
        try:
            result = super().main(args=args, prog_name=prog_name, complete_var=complete_var,
                                  standalone_mode=False, windows_expand_args=windows_expand_args,
                                  **extra)
        except USER_ERRORS as error:
            report_error(error)
        except (_Interrupted, KeyboardInterrupt):
            interrupted()
        except typer.Abort:
            sys.stderr.write("Aborted.\n")
            raise SystemExit(1) from None
        except Exception as error:
            if not isinstance(error, CLICK_EXCEPTION):
                raise
            code = getattr(error, "exit_code", EXIT_USER_ERROR)
            if code == 0 or type(error).__name__ == "NoArgsIsHelpError":
                raise SystemExit(0) from None  # --help, or no command: the help was printed
            report_error(error)
        code = result if isinstance(result, int) else 0
        if not standalone_mode:
            return code
        raise SystemExit(code)


def _value_shown(option: Any, ctx: Any) -> str | None:
    """What ``--help`` shows in an option's type column: nothing for a flag (``--json``,
    ``--coach``: it takes no value; typer would show ``<bool>``, as if one were typed),
    else typer's (the metavar, ``<int range>``...)."""
    if getattr(option, "is_flag", False) and option.metavar is None:
        return None
    return _TYPER_VALUE_SHOWN(option, ctx)


_TYPER_VALUE_SHOWN = TyperOption.display_type_rich
TyperOption.display_type_rich = _value_shown  # type: ignore[method-assign,assignment]


def _usage_name(argument: Any) -> str:
    """An argument as the usage line shows it: ``HAND`` when it is required, ``[FILE]``
    when it may be left out, ``...`` after one taking several (typer writes a required
    one ``{HAND}``, which reads as a literal brace or a set)."""
    name = str(argument.display_name_raw)
    if not argument.required and not name.startswith("["):
        name = f"[{name}]"
    return name + ("..." if argument.nargs != 1 else "")


TyperArgument._usage_display_name = _usage_name  # type: ignore[method-assign,assignment]


def _whole_option_names() -> None:
    """Make typer's options tables (``--help``'s Options and Arguments panels) show every
    option name whole: the name columns never wrap nor shrink (rich cuts a column that
    cannot wrap with "…" when a table is too wide for the console, e.g. at 80 columns,
    ``--max-connections-per…``); the type column wraps at its spaces and the description
    column takes the rest, a word longer than it (a URL) folded onto the next line rather
    than cut. typer builds these tables with ``rich.table.Table`` and adds rows without
    columns; the commands table adds its own columns and is left alone. Done once, when
    the first help is printed (typer imports its rich helpers only then)."""
    from typer import rich_utils

    if getattr(rich_utils.Table, "whole_option_names", False):  # type: ignore[attr-defined]
        return
    from rich.columns import Columns
    from rich.measure import Measurement
    from rich.table import Table

    class Folded:
        """An option's help (typer's ``Columns`` of the text, the env var, the default):
        side by side as typer shows it when it fits, else one below the other, a word
        longer than the column folded (a ``Columns`` cuts it with "…")."""

        def __init__(self, items: list[Any]) -> None:
            self.items = items

        def __rich_console__(self, console: Any, options: Any) -> Any:
            widths = [Measurement.get(console, options, item).maximum for item in self.items]
            if len(widths) > 1 and sum(widths) + len(widths) - 1 <= options.max_width:
                yield Columns(self.items)
            else:
                yield from self.items

    class OptionsTable(Table):
        whole_option_names = True

        def add_row(self, *renderables: Any, **options: Any) -> None:
            if renderables and isinstance(renderables[-1], Columns):
                renderables = (*renderables[:-1], Folded(list(renderables[-1].renderables)))
            if not self.columns:
                last = len(renderables) - 1
                for index in range(len(renderables)):
                    if index == last:
                        self.add_column(overflow="fold")
                    else:  # the names (and the "*" of a required one); the type wraps
                        self.add_column(no_wrap=index < last - 1)
            super().add_row(*renderables, **options)

    rich_utils.Table = OptionsTable  # type: ignore[attr-defined]


def _help_with_whole_names(original: Any) -> Any:
    """``format_help`` of a typer command or group, with :func:`_whole_option_names` first."""

    def format_help(self: Any, ctx: Any, formatter: Any) -> Any:
        _whole_option_names()
        return original(self, ctx, formatter)

    return format_help


TyperCommand.format_help = _help_with_whole_names(  # type: ignore[method-assign]
    TyperCommand.format_help)
TyperGroup.format_help = _help_with_whole_names(  # type: ignore[method-assign]
    TyperGroup.format_help)


def build() -> typer.Typer:
    """A new ``guts`` app with every command group registered."""
    guts = typer.Typer(
        cls=GutsGroup,
        name="guts",
        help="Guts poker: play in the terminal, simulate, compare hands, referee a real table.",
        no_args_is_help=True,
        add_completion=False,
        rich_markup_mode="markdown",
        context_settings={"help_option_names": ["-h", "--help"]},
    )
    guts.callback()(_options)
    for group in (play, companion, sim, table, strategy, tournament, analysis, serve):
        group.register(guts)
    return guts


def _print_version(value: bool) -> None:
    """``--version``'s callback: print ``guts VERSION`` (the installed package's metadata)
    and exit."""
    if not value:
        return
    from importlib.metadata import PackageNotFoundError, version

    try:
        number = version("gutskit")
    except PackageNotFoundError:  # run from a source tree that is not installed
        number = "unknown (gutskit is not installed)"
    typer.echo(f"guts {number}")
    raise typer.Exit()


def _options(version: Annotated[bool, typer.Option(
        "--version", callback=_print_version, is_eager=True,
        help="Print gutskit's version and exit.")] = False) -> None:
    """Guts poker: play in the terminal, simulate, compare hands, referee a real table."""


app = build()
"""The ``guts`` app."""


def main(argv: Sequence[str] | None = None) -> None:
    """Run ``guts`` with ``argv`` (default: ``sys.argv[1:]``); exits the process."""
    app(args=list(argv) if argv is not None else None, prog_name="guts")


if __name__ == "__main__":
    main()
