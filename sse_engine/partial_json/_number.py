"""A number cut by fragment boundaries: kept so that showing it costs a bounded amount.

:attr:`PartialJSON.value <sse_engine.partial_json.PartialJSON.value>` shows an
unfinished number as the number so far, as ``jiter`` does. Converting the
whole text at every read is quadratic for a long number read after every
fragment (a megabyte of digits in 40-character fragments: half a minute).
What a read needs is bounded:

- the integer part can have at most ``sys.get_int_max_str_digits()`` digits:
  ``jiter`` refuses the number at the digit past it ("number out of range"),
  integer or float, and so does the reader (:attr:`NumberText.too_long`), at
  once rather than after all of it has arrived;
- a float is the correctly rounded double of its decimal text, which depends
  only on its first 800 significant digits (767 decide any rounding), on
  whether any digit after them is not zero, and on an exponent that is either
  small or makes the value overflow or vanish: :meth:`NumberText.value`
  converts that bounded text.

The automaton in ``_reader.py`` has already checked the characters; this
room only counts them.
"""

from __future__ import annotations

import sys

__all__ = ["NumberText", "past_digit_limit", "too_many_digits"]

#: Significant digits kept: enough to round any decimal to the nearest double.
_KEPT = 800
#: An exponent with more digits than this makes any value overflow or vanish.
_EXPONENT_DIGITS = 24


def past_digit_limit(number: str) -> int:
    """Where in a whole number's text its integer part passes ``int()``'s digit limit, or -1."""
    limit = sys.get_int_max_str_digits()
    if not limit or len(number) <= limit:
        return -1
    sign = 1 if number[0] == "-" else 0
    end = len(number)
    for mark in ".eE":
        at = number.find(mark)
        if at >= 0:
            end = min(end, at)
    return sign + limit if end - sign > limit else -1


def too_many_digits() -> str:
    """What the reader expected where a number's integer part grew too long."""
    return (
        f"expected at most {sys.get_int_max_str_digits()} digits before the number's point or "
        "exponent (int()'s limit, sys.get_int_max_str_digits(); jiter stops there too)"
    )


class NumberText:
    """The characters of one number so far, counted as they arrive."""

    __slots__ = (
        "_exponent",
        "_exponent_negative",
        "_fraction",
        "_head",
        "_head_length",
        "_integer",
        "_integer_length",
        "_negative",
        "_phase",
        "_significant",
        "_sticky",
    )

    def __init__(self) -> None:
        self._negative = False
        self._phase = 0  # 0: integer part, 1: fraction, 2: exponent
        self._integer: list[str] = []  # the integer part's digits
        self._integer_length = 0
        self._head: list[str] = []  # the first _KEPT significant digits
        self._head_length = 0
        self._significant = 0  # how many significant digits there are in all
        self._sticky = False  # a non-zero digit came after the kept ones
        self._fraction = 0  # digits after the point
        self._exponent = ""  # the exponent's digits, leading zeros dropped
        self._exponent_negative = False

    def add(self, run: str) -> int:
        """More of the number (a run of characters the automaton accepted).

        Returns where in ``run`` the integer part grew past ``int()``'s digit
        limit (the character ``jiter`` refuses), or -1.
        """
        at, n = 0, len(run)
        while at < n:
            char = run[at]
            if "0" <= char <= "9":
                end = at + 1
                while end < n and "0" <= run[end] <= "9":
                    end += 1
                past = self._digits(run[at:end])
                if past >= 0:
                    return at + past
                at = end
                continue
            if char == "-":
                if self._phase == 2:
                    self._exponent_negative = True
                else:
                    self._negative = True
            elif char == ".":
                self._phase = 1
            elif char == "e" or char == "E":
                self._phase = 2
            at += 1
        return -1

    def _digits(self, digits: str) -> int:
        phase = self._phase
        if phase == 2:
            if not self._exponent:
                digits = digits.lstrip("0")
            if len(self._exponent) <= _EXPONENT_DIGITS:
                self._exponent += digits[: _EXPONENT_DIGITS + 1]
            return -1
        if phase == 0:
            held = self._integer_length
            limit = sys.get_int_max_str_digits()
            if limit and held + len(digits) > limit:
                return limit - held
            self._integer.append(digits)
            self._integer_length = held + len(digits)
        else:
            self._fraction += len(digits)
        if not self._significant:
            digits = digits.lstrip("0")
            if not digits:
                return -1
        room = _KEPT - self._head_length
        if room > 0:
            self._head.append(digits[:room])
            self._head_length += min(room, len(digits))
            if len(digits) > room and digits[room:].strip("0"):
                self._sticky = True
        elif not self._sticky and digits.strip("0"):
            self._sticky = True
        self._significant += len(digits)
        return -1

    def value(self, integer: bool) -> int | float:
        """The number so far: the ``int`` of an integer, else the float of its text."""
        sign = "-" if self._negative else ""
        if integer:
            digits = "".join(self._integer)
            self._integer = [digits]
            return int(sign + digits)
        head = "".join(self._head)
        self._head = [head] if head else []
        exponent = int(self._exponent or "0")
        if len(self._exponent) > _EXPONENT_DIGITS:
            exponent = 10**_EXPONENT_DIGITS  # no text is long enough to bring it back
        if self._exponent_negative:
            exponent = -exponent
        point = self._significant - self._fraction + exponent
        return float(f"{sign}0.{head or '0'}{'1' if self._sticky else ''}e{point}")
