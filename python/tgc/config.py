"""tgc.config: the process-wide settings (floatX, device, allow_gc, profile, ...).

Read at import from the defaults, then ~/.tgcrc (or $TGCRC), then $TGC_FLAGS -- the same
sources and syntax as the tgc command. Attributes read and set them::

    tgc.config.floatX            # 'float32'
    tgc.config.floatX = "float64"  # for functions and variables made from now on
"""

from . import _tgc

_BOOLEANS = {"true": True, "false": False}


class Config:
    """Attribute access to tgc's configuration keys (list them with dir(tgc.config)).

    Values read back as Python values: booleans as bool, whole numbers as int, the rest as
    text. Setting converts to text and checks the value (tgc.ConfigError when bad).
    """

    def __getattr__(self, key):
        if key.startswith("__"):
            raise AttributeError(key)
        try:
            text = _tgc.config_get(key)
        except _tgc.ConfigError as e:
            if key in _tgc.config_keys():  # a bad setting in ~/.tgcrc or TGC_FLAGS: say so
                raise
            raise AttributeError(str(e)) from None  # an unknown key (the message suggests one)
        if text in _BOOLEANS:
            return _BOOLEANS[text]
        if text.isdigit():
            return int(text)
        return text

    def __setattr__(self, key, value):
        if isinstance(value, bool):
            value = "true" if value else "false"
        _tgc.config_set(key, str(value))

    def __dir__(self):
        return list(_tgc.config_keys())

    def __repr__(self):
        return "tgc.config(" + ", ".join(f"{k}={_tgc.config_get(k)!r}" for k in _tgc.config_keys()) + ")"


config = Config()
