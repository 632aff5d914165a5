"""The names a refused lookup could have found, for its one-line error ("...; valid names: 'a', 'b'").

The C++ rules (coupler/wire/name_list.hpp), bound: each name is shown as peer
text, and a long list names its first few and how many more there are.
"""

from coupler._native import name_list as _name_list

valid_names = _name_list.valid_names

__all__ = ["valid_names"]
