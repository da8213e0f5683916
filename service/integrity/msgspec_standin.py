"""A standard-library stand-in for the part of msgspec the offline verifier uses (issue 12, docs/audit.md).

Why it is hand-written: the verifier (``python -m service verify``) must run on nothing but the standard
library and ``cryptography``, yet the rules it re-decides every move with (``domain/``) declare their
commands, events and states as msgspec structs. ``install()`` registers this module as ``msgspec`` when the
real one cannot be imported, and only the verifier's entry point calls it (service/__main__.py); the server
always runs on msgspec itself.

It covers only what the verifier's imports use, nothing more: ``Struct`` (class options ``frozen``,
``kw_only``, ``forbid_unknown_fields``, ``dict``, ``omit_defaults``, ``order``, ``tag_field``, ``tag``; with
``Generic``; ``__post_init__``), ``field`` (``default``, ``default_factory``, ``name``), ``Meta`` (``ge``,
``le``, ``gt``, ``lt``, ``min_length``, ``max_length``), ``Raw``, ``DecodeError``, ``ValidationError``,
``convert``, ``to_builtins``, ``json.decode``/``json.Decoder``/``json.encode`` and ``structs.replace``/
``structs.asdict``. Structs are frozen-or-not dataclasses underneath. ``json.encode`` writes the bytes
msgspec writes (compact, keys in their order, a struct's tag first, non-ASCII as itself, msgspec's float
notation): the verifier hashes re-encoded event data and compares re-decided events with stored ones.
A ``Raw`` decoded from JSON holds its value re-encoded compactly (the verifier only meets ``Raw`` in stored
commands, which are compact already). Error messages follow msgspec's wording for the common cases.
tests/unit/test_msgspec_standin.py holds it to msgspec.
"""

from __future__ import annotations

import dataclasses
import datetime as _datetime
import json as _json
import operator
import re
import sys
import types
import typing
from collections.abc import Callable
from typing import Any, ClassVar

__all__ = [
    "DecodeError",
    "Meta",
    "MsgspecError",
    "Raw",
    "Struct",
    "ValidationError",
    "convert",
    "field",
    "install",
    "json",
    "structs",
    "to_builtins",
]


class MsgspecError(Exception):
    """The base of this stand-in's errors, as msgspec's."""


class DecodeError(MsgspecError):
    """Input that is not valid JSON."""


class ValidationError(DecodeError):
    """Valid JSON (or builtin values) that does not fit the type asked for."""


class _Invalid(Exception):
    """A validation failure on its way out, collecting the path to the value that failed (innermost last)."""

    def __init__(self, message: str, path: list[str] | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.path = path or []


def _failure(error: _Invalid) -> ValidationError:
    """The ValidationError msgspec raises: the message, then `` - at `$<path>` `` unless at the root."""
    if not error.path:
        return ValidationError(error.message)
    if error.path[-1] == "key":  # a dict key: msgspec says "at `key` in `$<path to the dict>`"
        return ValidationError(f"{error.message} - at `key` in `${''.join(reversed(error.path[:-1]))}`")
    return ValidationError(f"{error.message} - at `${''.join(reversed(error.path))}`")


class _NoDefault:
    """The absence of a default."""

    def __repr__(self) -> str:
        return "NODEFAULT"


NODEFAULT: Any = _NoDefault()


@dataclasses.dataclass(frozen=True)
class _FieldSpec:
    """What ``field(...)`` declares: a default or a default factory, and the field's name in JSON."""

    default: Any = NODEFAULT
    default_factory: Any = NODEFAULT
    name: str | None = None


def field(*, default: Any = NODEFAULT, default_factory: Any = NODEFAULT, name: str | None = None) -> Any:
    """A struct field's default (or default factory) and its name in JSON, as ``msgspec.field``."""
    return _FieldSpec(default, default_factory, name)


class Meta:
    """Constraints on an ``Annotated`` type (``ge``, ``le``, ``gt``, ``lt``, ``min_length``, ``max_length``);
    other keywords (titles, descriptions) are kept and ignored."""

    def __init__(
        self,
        *,
        ge: Any = None,
        le: Any = None,
        gt: Any = None,
        lt: Any = None,
        min_length: int | None = None,
        max_length: int | None = None,
        **info: Any,
    ) -> None:
        self.ge, self.le, self.gt, self.lt = ge, le, gt, lt
        self.min_length, self.max_length = min_length, max_length
        self.info = info


class Raw:
    """A JSON value kept as its encoded bytes: decoded later, or written verbatim when encoded."""

    __slots__ = ("_data",)

    def __init__(self, data: bytes | bytearray | memoryview | str = b"") -> None:
        self._data = data.encode() if isinstance(data, str) else bytes(data)

    def __bytes__(self) -> bytes:
        return self._data

    def __len__(self) -> int:
        return len(self._data)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Raw) and self._data == other._data

    def __hash__(self) -> int:
        return hash(self._data)

    def __repr__(self) -> str:
        return f"Raw({self._data!r})"

    def copy(self) -> Raw:
        """The same bytes."""
        return Raw(self._data)


@dataclasses.dataclass(frozen=True)
class StructConfig:
    """A struct class's options (``__struct_config__``)."""

    frozen: bool = False
    kw_only: bool = False
    forbid_unknown_fields: bool = False
    omit_defaults: bool = False
    order: bool = False
    eq: bool = True
    dict: bool = False
    tag_field: str | None = None
    tag: str | int | None = None


_OPTIONS = ("frozen", "kw_only", "forbid_unknown_fields", "omit_defaults", "order", "eq", "dict", "tag_field")


class Struct:
    """A typed record as ``msgspec.Struct``: its annotated fields, in order (a base's first), become a
    dataclass with the class's options; ``tag_field`` (inherited) and ``tag`` (the class name unless given)
    tag it in JSON."""

    __struct_config__: ClassVar[StructConfig] = StructConfig()
    __struct_fields__: ClassVar[tuple[str, ...]] = ()
    __struct_encode_fields__: ClassVar[tuple[str, ...]] = ()
    __struct_defaults__: ClassVar[dict[str, Callable[[], Any]]] = {}

    def __init_subclass__(cls, **options: Any) -> None:
        super().__init_subclass__()
        unknown = set(options) - {*_OPTIONS, "tag"}
        if unknown:
            raise TypeError(f"this msgspec stand-in does not support the struct options {sorted(unknown)}")
        inherited = cls.__struct_config__
        settings = {name: options.get(name, getattr(inherited, name)) for name in _OPTIONS}
        tag = options.get("tag")
        if settings["tag_field"] is not None and tag in (None, True):
            tag = cls.__name__
        config = StructConfig(**settings, tag=tag)
        renames: dict[str, str] = {}
        for name, value in list(vars(cls).items()):
            if isinstance(value, _FieldSpec):
                if value.name is not None:
                    renames[name] = value.name
                if value.default_factory is not NODEFAULT:
                    setattr(cls, name, dataclasses.field(default_factory=value.default_factory))
                elif value.default is not NODEFAULT:
                    setattr(cls, name, _dataclass_default(value.default))
                else:
                    delattr(cls, name)
            elif (
                name in vars(cls).get("__annotations__", {})
                and not name.startswith("__")
                and value.__class__.__hash__ is None  # a mutable default: each instance gets a copy
            ):
                setattr(cls, name, _dataclass_default(value))
        dataclasses.dataclass(
            cls, frozen=config.frozen, kw_only=config.kw_only, eq=config.eq, order=config.order
        )
        fields = dataclasses.fields(cls)  # type: ignore[arg-type]
        parent_renames = dict(zip(inherited_fields(cls), inherited_names(cls), strict=True))
        cls.__struct_config__ = config
        cls.__struct_fields__ = tuple(f.name for f in fields)
        cls.__struct_encode_fields__ = tuple(
            renames.get(f.name, parent_renames.get(f.name, f.name)) for f in fields
        )
        cls.__struct_defaults__ = {
            f.name: (f.default_factory if f.default is dataclasses.MISSING else _constant(f.default))  # type: ignore[misc]
            for f in fields
            if f.default is not dataclasses.MISSING or f.default_factory is not dataclasses.MISSING
        }


def inherited_fields(cls: type) -> tuple[str, ...]:
    """The field names of ``cls``'s nearest struct base."""
    return next((base.__struct_fields__ for base in cls.__mro__[1:] if issubclass(base, Struct)), ())


def inherited_names(cls: type) -> tuple[str, ...]:
    """The JSON names of ``cls``'s nearest struct base's fields."""
    return next((base.__struct_encode_fields__ for base in cls.__mro__[1:] if issubclass(base, Struct)), ())


def _constant(value: Any) -> Callable[[], Any]:
    """A factory returning ``value``."""
    return lambda: value


def _dataclass_default(value: Any) -> Any:
    """A default as dataclasses takes it: a mutable one (list, dict, set) copied for each instance."""
    if value.__class__.__hash__ is None:
        return dataclasses.field(default_factory=lambda: value.copy())
    return value


# --- structs -------------------------------------------------------------------------------------------


def _replace(struct: Any, /, **changes: Any) -> Any:
    """A copy of ``struct`` with ``changes`` (its ``__post_init__``, if any, runs on the copy)."""
    cls = type(struct)
    copy = object.__new__(cls)
    values = copy.__dict__
    for name in cls.__struct_fields__:
        values[name] = changes.pop(name) if name in changes else getattr(struct, name)
    if changes:
        raise TypeError(f"`{cls.__name__}` has no field '{next(iter(changes))}'")
    if hasattr(cls, "__post_init__"):
        copy.__post_init__()
    return copy


def _asdict(struct: Any) -> dict[str, Any]:
    """The struct's fields as a dict (shallow)."""
    return {name: getattr(struct, name) for name in type(struct).__struct_fields__}


structs = types.ModuleType("msgspec.structs", "The stand-in's msgspec.structs: replace and asdict.")
structs.__dict__.update(replace=_replace, asdict=_asdict)


# --- encoding ------------------------------------------------------------------------------------------

_encode_string = _json.encoder.encode_basestring  # escapes ", \ and < 0x20 only


def _float(value: float) -> str:
    """A float as msgspec writes it: the shortest repr, fixed notation for exponents -5..15, else ``1e16``,
    ``1.5e-7``; NaN and infinities as null."""
    if value != value or value in (float("inf"), float("-inf")):
        return "null"
    text = repr(value)
    if "e" not in text:
        return text
    mantissa, exponent = text.split("e")
    power = int(exponent)
    if power == -5:
        sign = "-" if mantissa.startswith("-") else ""
        return f"{sign}0.0000{mantissa.lstrip('-').replace('.', '')}"
    return f"{mantissa}e{power}"


def _datetime_text(value: _datetime.datetime) -> str:
    """A datetime in RFC 3339 as msgspec writes it (UTC as ``Z``)."""
    text = value.isoformat()
    return text[:-6] + "Z" if text.endswith("+00:00") else text


def _write(value: Any, out: list[str]) -> None:
    """Append ``value``'s compact JSON to ``out``."""
    if value is None:
        out.append("null")
    elif value is True:
        out.append("true")
    elif value is False:
        out.append("false")
    elif isinstance(value, str):
        out.append(_encode_string(value))
    elif isinstance(value, int):
        out.append(int.__repr__(value))
    elif isinstance(value, float):
        out.append(_float(value))
    elif isinstance(value, Struct):
        cls = type(value)
        config = cls.__struct_config__
        first = True
        out.append("{")
        if config.tag_field is not None:
            out.append(f"{_encode_string(config.tag_field)}:")
            _write(config.tag, out)
            first = False
        defaults = cls.__struct_defaults__ if config.omit_defaults else {}
        for name, key in zip(cls.__struct_fields__, cls.__struct_encode_fields__, strict=True):
            item = getattr(value, name)
            if name in defaults and item == defaults[name]():
                continue
            out.append(f"{'' if first else ','}{_encode_string(key)}:")
            _write(item, out)
            first = False
        out.append("}")
    elif isinstance(value, dict):
        out.append("{")
        for index, (key, item) in enumerate(value.items()):
            if isinstance(key, str):
                name = key
            elif isinstance(key, int) and not isinstance(key, bool):
                name = str(key)
            else:
                raise TypeError("Only dicts with str-like or number-like keys are supported")
            out.append(f"{',' if index else ''}{_encode_string(name)}:")
            _write(item, out)
        out.append("}")
    elif isinstance(value, list | tuple | set | frozenset):
        out.append("[")
        for index, item in enumerate(value):
            if index:
                out.append(",")
            _write(item, out)
        out.append("]")
    elif isinstance(value, Raw):
        out.append(bytes(value).decode("utf-8", "surrogateescape"))
    elif isinstance(value, _datetime.datetime):
        out.append(f'"{_datetime_text(value)}"')
    else:
        raise TypeError(f"Encoding objects of type {type(value).__name__} is unsupported")


def _encode(obj: Any) -> bytes:
    """``obj`` as compact JSON, byte for byte as ``msgspec.json.encode``."""
    out: list[str] = []
    _write(obj, out)
    return "".join(out).encode("utf-8", "surrogateescape")


def to_builtins(obj: Any) -> Any:
    """``obj`` as JSON-like builtins: structs as dicts (tag first), tuples and sets as lists."""
    if isinstance(obj, Struct):
        cls = type(obj)
        config = cls.__struct_config__
        out: dict[str, Any] = {} if config.tag_field is None else {config.tag_field: config.tag}
        defaults = cls.__struct_defaults__ if config.omit_defaults else {}
        for name, key in zip(cls.__struct_fields__, cls.__struct_encode_fields__, strict=True):
            item = getattr(obj, name)
            if not (name in defaults and item == defaults[name]()):
                out[key] = to_builtins(item)
        return out
    if isinstance(obj, dict):
        return {key: to_builtins(item) for key, item in obj.items()}
    if isinstance(obj, list | tuple | set | frozenset):
        return [to_builtins(item) for item in obj]
    if isinstance(obj, _datetime.datetime):
        return _datetime_text(obj)
    return obj


# --- decoding ------------------------------------------------------------------------------------------

Converter = Callable[[Any], Any]
_converters: dict[Any, Converter] = {}
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


def _kind(value: Any) -> str:
    """The JSON kind of a builtin value, as msgspec names it in errors."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int"
    if isinstance(value, float):
        return "float"
    if isinstance(value, str):
        return "str"
    if isinstance(value, dict | Struct):
        return "object"
    if isinstance(value, list | tuple | set | frozenset):
        return "array"
    return type(value).__name__


def _expected(name: str, value: Any) -> _Invalid:
    """A type mismatch."""
    return _Invalid(f"Expected `{name}`, got `{_kind(value)}`")


def _converter(tp: Any) -> Converter:
    """The function that checks and converts a builtin value to ``tp`` (cached per type)."""
    try:
        return _converters[tp]
    except KeyError:
        pass
    except TypeError:  # an unhashable type expression
        return _build(tp)
    converter = _converters[tp] = _build(tp)
    return converter


def _lazy(tp: Any) -> Converter:
    """A converter built on first use (struct fields may name classes defined later)."""
    built: list[Converter] = []

    def convert_lazily(value: Any) -> Any:
        if not built:
            built.append(_converter(tp))
        return built[0](value)

    return convert_lazily


def _type_name(tp: Any) -> str:
    """A type as msgspec names it in errors."""
    origin = typing.get_origin(tp)
    if tp in (None, type(None)):
        return "null"
    if origin is typing.Annotated:
        return _type_name(typing.get_args(tp)[0])
    if origin in (typing.Union, types.UnionType):
        return " | ".join(dict.fromkeys(_type_name(arg) for arg in typing.get_args(tp)))
    if origin is typing.Literal:
        return " | ".join(dict.fromkeys(_type_name(type(arg)) for arg in typing.get_args(tp)))
    if origin in (list, tuple, set, frozenset) or tp in (list, tuple, set, frozenset):
        return "array"
    if origin is dict or tp is dict or (isinstance(tp, type) and issubclass(tp, Struct)):
        return "object"
    if isinstance(origin, type) and issubclass(origin, Struct):
        return "object"
    if tp is _datetime.datetime:
        return "datetime"
    return getattr(tp, "__name__", str(tp))


def _build(tp: Any) -> Converter:
    """Build the converter for ``tp``."""
    if tp is Any or tp is object:
        return lambda value: value
    if isinstance(tp, typing.TypeVar):
        bound = tp.__bound__
        return _converter(bound) if bound is not None else (lambda value: value)
    if tp is None or tp is type(None):
        return _scalar(lambda value: value is None, "null")
    if tp is bool:
        return _scalar(lambda value: value is True or value is False, "bool")
    if tp is int:
        return _scalar(lambda value: type(value) is int, "int")
    if tp is str:
        return _scalar(lambda value: type(value) is str, "str")
    if tp is float:
        return _float_converter
    if tp is _datetime.datetime:
        return _datetime_converter
    if tp is Raw:
        return _raw_converter
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if origin is typing.Annotated:
        return _constrained(_converter(args[0]), args[0], [a for a in args[1:] if isinstance(a, Meta)])
    if origin is typing.Literal:
        return _literal(args)
    if origin in (typing.Union, types.UnionType):
        return _union(args)
    if tp in (list, tuple, set, frozenset, dict):
        return _converter(tp[Any, Any] if tp is dict else tp[Any, ...] if tp is tuple else tp[Any])
    if origin in (list, set, frozenset):
        return _array(origin, _converter(args[0] if args else Any))
    if origin is tuple:
        if len(args) == 2 and args[1] is Ellipsis:
            return _array(tuple, _converter(args[0]))
        return _fixed_tuple([_converter(arg) for arg in args])
    if origin is dict:
        return _mapping(_key_converter(args[0]), _converter(args[1]))
    if isinstance(origin, type) and issubclass(origin, Struct):  # a generic struct, e.g. Pending[Decision]
        return _converter(origin)
    if isinstance(tp, type) and issubclass(tp, Struct):
        return _struct(tp)
    raise TypeError(f"this msgspec stand-in cannot decode type {tp!r}")


def _scalar(check: Callable[[Any], bool], name: str) -> Converter:
    """A converter that only checks the value's kind."""

    def convert_scalar(value: Any) -> Any:
        if not check(value):
            raise _expected(name, value)
        return value

    return convert_scalar


def _float_converter(value: Any) -> Any:
    """A number as a float (an int is accepted)."""
    if type(value) is float:
        return value
    if type(value) is int:
        return float(value)
    raise _expected("float", value)


def _datetime_converter(value: Any) -> Any:
    """An RFC 3339 string as a datetime."""
    if isinstance(value, _datetime.datetime):
        return value
    if type(value) is not str:
        raise _expected("datetime", value)
    try:
        return _datetime.datetime.fromisoformat(value)
    except ValueError:
        raise _Invalid("Invalid RFC3339 encoded datetime") from None


def _raw_converter(value: Any) -> Any:
    """Any value, kept as its compact JSON."""
    return value if isinstance(value, Raw) else Raw(_encode(value))


def _literal(args: tuple[Any, ...]) -> Converter:
    """One of the literal values."""
    allowed = set(args)
    kinds = {type(arg) for arg in args}

    def convert_literal(value: Any) -> Any:
        if type(value) not in kinds:
            raise _expected(_type_name(typing.Literal[args]), value)
        if value not in allowed:
            raise _Invalid(f"Invalid enum value {value!r}")
        return value

    return convert_literal


def _constrained(inner: Converter, tp: Any, metas: list[Meta]) -> Converter:
    """``inner``, then every ``Meta`` constraint."""
    name = _type_name(tp)

    def convert_constrained(value: Any) -> Any:
        result = inner(value)
        for meta in metas:
            for bound, symbol, fails in (
                (meta.ge, ">=", operator.lt),
                (meta.gt, ">", operator.le),
                (meta.le, "<=", operator.gt),
                (meta.lt, "<", operator.ge),
            ):
                if bound is not None and fails(result, bound):
                    raise _Invalid(f"Expected `{name}` {symbol} {bound}")
            if meta.min_length is not None and len(result) < meta.min_length:
                raise _Invalid(f"Expected `{name}` of length >= {meta.min_length}")
            if meta.max_length is not None and len(result) > meta.max_length:
                raise _Invalid(f"Expected `{name}` of length <= {meta.max_length}")
        return result

    return convert_constrained


def _array(kind: type, item: Converter) -> Converter:
    """A JSON array as a list, tuple, set or frozenset of converted items."""
    name = "array"

    def convert_array(value: Any) -> Any:
        if not isinstance(value, list | tuple | set | frozenset):
            raise _expected(name, value)
        items = []
        for index, element in enumerate(value):
            try:
                items.append(item(element))
            except _Invalid as error:
                error.path.append(f"[{index}]")
                raise
        return items if kind is list else kind(items)

    return convert_array


def _fixed_tuple(items: list[Converter]) -> Converter:
    """A JSON array of exactly ``len(items)`` values, each converted by its own converter."""

    def convert_tuple(value: Any) -> Any:
        if not isinstance(value, list | tuple):
            raise _expected("array", value)
        if len(value) != len(items):
            raise _Invalid(f"Expected `array` of length {len(items)}")
        out = []
        for index, (convert_item, element) in enumerate(zip(items, value, strict=True)):
            try:
                out.append(convert_item(element))
            except _Invalid as error:
                error.path.append(f"[{index}]")
                raise
        return tuple(out)

    return convert_tuple


def _key_converter(tp: Any) -> Converter:
    """A dict key: JSON keys are strings, so an int key is read from its digits."""
    inner = _converter(tp)
    if tp is not int:
        return inner

    def convert_key(value: Any) -> Any:
        if type(value) is str and re.fullmatch(r"-?(0|[1-9][0-9]*)", value):
            return int(value)
        return inner(value)

    return convert_key


def _mapping(key: Converter, item: Converter) -> Converter:
    """A JSON object as a dict of converted keys and values."""

    def convert_mapping(value: Any) -> Any:
        if not isinstance(value, dict):
            raise _expected("object", value)
        out = {}
        for name, element in value.items():
            try:
                converted = key(name)
            except _Invalid as error:
                error.path.append("key")
                raise
            try:
                out[converted] = item(element)
            except _Invalid as error:
                error.path.append("[...]")
                raise
        return out

    return convert_mapping


def _struct(cls: Any) -> Converter:
    """A JSON object as an instance of the struct class ``cls``: its tag checked, its fields converted in the
    order the object gives them (so the first fault reported is msgspec's), unknown ones refused if the
    class says so, missing ones given their defaults; then its ``__post_init__``."""
    config = cls.__struct_config__
    by_key: dict[str, tuple[str, Converter]] = {}
    names = cls.__struct_fields__
    json_names = dict(zip(names, cls.__struct_encode_fields__, strict=True))

    def resolve() -> None:
        hints = typing.get_type_hints(cls, include_extras=True)
        by_key.update((key, (name, _lazy(hints[name]))) for name, key in json_names.items())

    defaults = cls.__struct_defaults__
    post_init = getattr(cls, "__post_init__", None)
    tag_field, tag, forbid = config.tag_field, config.tag, config.forbid_unknown_fields

    def convert_struct(value: Any) -> Any:
        if isinstance(value, cls):
            return value
        if not isinstance(value, dict):
            raise _expected("object", value)
        if not by_key and names:
            resolve()
        if tag_field is not None and tag_field in value and value[tag_field] != tag:
            raise _Invalid(f"Invalid value {value[tag_field]!r}", [f".{tag_field}"])
        found: dict[str, Any] = {}
        for key, item in value.items():
            entry = by_key.get(key)
            if entry is None:
                if forbid and key != tag_field:
                    raise _Invalid(f"Object contains unknown field `{key}`")
                continue
            try:
                found[entry[0]] = entry[1](item)
            except _Invalid as error:
                error.path.append(f".{key}")
                raise
        instance = object.__new__(cls)
        values = instance.__dict__
        for name in names:
            if name in found:
                values[name] = found[name]
            elif name in defaults:
                values[name] = defaults[name]()
            else:
                raise _Invalid(f"Object missing required field `{json_names[name]}`")
        if post_init is not None:
            try:
                instance.__post_init__()
            except (ValueError, TypeError) as exc:
                raise _Invalid(str(exc)) from None
        return instance

    return convert_struct


def _union(args: tuple[Any, ...]) -> Converter:
    """One of several types, chosen by the value's JSON kind (a tagged struct by its tag)."""
    name = " | ".join(dict.fromkeys(_type_name(arg) for arg in args))
    by_kind: dict[str, Converter] = {}
    tagged: dict[Any, Converter] = {}
    tag_field: str | None = None
    objects: list[Any] = []
    literals: list[Any] = []
    for arg in args:  # typing flattens nested unions; Annotated members keep their constraints
        base = typing.get_args(arg)[0] if typing.get_origin(arg) is typing.Annotated else arg
        origin = typing.get_origin(base) or base
        if base in (Any, object):
            return lambda value: value
        if base in (None, type(None)):
            by_kind["null"] = _converter(arg)
        elif base is bool:
            by_kind["bool"] = _converter(arg)
        elif base is int:
            by_kind["int"] = _converter(arg)
        elif base is float:
            by_kind["float"] = _converter(arg)
            by_kind.setdefault("int", _converter(arg))
        elif base in (str, _datetime.datetime):
            by_kind["str"] = _converter(arg)
        elif origin is typing.Literal:
            literals.extend(typing.get_args(base))
        elif origin in (list, tuple, set, frozenset):
            by_kind["array"] = _converter(arg)
        elif isinstance(origin, type) and issubclass(origin, Struct) and origin.__struct_config__.tag_field:
            tag_field = origin.__struct_config__.tag_field
            tagged[origin.__struct_config__.tag] = _lazy(arg)
        else:
            objects.append(arg)
    if literals:
        for kind in ("str", "int", "null"):
            matching = tuple(v for v in literals if _kind(v) == kind)
            if matching:
                by_kind.setdefault(kind, _literal(matching))
    if tagged:
        field_name = tag_field

        def convert_tagged(value: Any) -> Any:
            if field_name not in value:
                raise _Invalid(f"Object missing required field `{field_name}`")
            convert_one = tagged.get(value[field_name])
            if convert_one is None:
                raise _Invalid(f"Invalid value {value[field_name]!r}", [f".{field_name}"])
            return convert_one(value)

        by_kind["object"] = convert_tagged
    elif objects:
        by_kind["object"] = _converter(objects[0])

    def convert_union(value: Any) -> Any:
        kind = _kind(value)
        convert_one = by_kind.get(kind)
        if convert_one is None:
            if isinstance(value, Struct) and type(value).__struct_config__.tag in tagged:
                return value
            raise _Invalid(f"Expected `{name}`, got `{kind}`")
        return convert_one(value)

    return convert_union


def _check_surrogates(value: Any) -> None:
    """Refuse strings holding a lone surrogate (msgspec refuses them as invalid input)."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            item.encode("utf-8")
        elif isinstance(item, dict):
            stack.extend(item)
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)


def _reject_constant(name: str) -> Any:
    """NaN and Infinity are not JSON."""
    raise ValueError(f"invalid constant {name}")


def _parse(data: Any) -> Any:
    """Parse JSON (bytes, str or Raw) into builtins; DecodeError if it is not JSON."""
    try:
        if isinstance(data, Raw):
            data = bytes(data)
        text = data if isinstance(data, str) else bytes(data).decode("utf-8")
        value = _json.loads(text, parse_constant=_reject_constant)
        if "\\u" in text and _SURROGATE_ESCAPE.search(text):
            _check_surrogates(value)
    except (ValueError, UnicodeError) as exc:
        raise DecodeError(f"Invalid JSON: {exc}") from None
    return value


def convert(obj: Any, type: Any) -> Any:
    """``obj`` (builtin values) as ``type``, validated; ValidationError naming where it does not fit."""
    try:
        return _converter(type)(obj)
    except _Invalid as error:
        raise _failure(error) from None


class _Decoder:
    """``msgspec.json.Decoder``: decodes JSON into one type."""

    def __init__(self, type: Any = Any) -> None:
        self.type = type
        self._convert = _converter(type)

    def decode(self, data: Any) -> Any:
        """``data`` (JSON) as the decoder's type."""
        try:
            return self._convert(_parse(data))
        except _Invalid as error:
            raise _failure(error) from None


def _decode(data: Any, *, type: Any = Any) -> Any:
    """``data`` (JSON) as ``type`` (builtins by default)."""
    return _Decoder(type).decode(data)


class _Encoder:
    """``msgspec.json.Encoder``: encodes to compact JSON."""

    def encode(self, obj: Any) -> bytes:
        """``obj`` as compact JSON."""
        return _encode(obj)


json = types.ModuleType("msgspec.json", "The stand-in's msgspec.json: decode, Decoder, encode, Encoder.")
json.__dict__.update(decode=_decode, Decoder=_Decoder, encode=_encode, Encoder=_Encoder)


def install() -> bool:
    """Register this stand-in as ``msgspec`` (with ``msgspec.json`` and ``msgspec.structs``) unless the
    real msgspec can be imported; whether it did. Only the offline verifier's entry point calls it."""
    try:
        import msgspec  # noqa: F401
    except ImportError:
        sys.modules["msgspec"] = sys.modules[__name__]
        sys.modules["msgspec.json"] = json
        sys.modules["msgspec.structs"] = structs
        return True
    return False
