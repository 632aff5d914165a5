#include <string>

#include <coupler/wire/peer_text.hpp>

#include "bindings.hpp"

namespace py = pybind11;

namespace coupler::python {
namespace {

// A peer's text as UTF-8: bytes that are not UTF-8 become U+FFFD; a str's lone surrogates are
// passed as such, and shown escaped (\udcxx), so any text can be shown.
std::string utf8_of(const py::handle& text) {
  py::object decoded;
  if (py::isinstance<py::bytes>(text)) {
    decoded = text.attr("decode")("utf-8", "replace");
  } else if (py::isinstance<py::str>(text)) {
    decoded = py::reinterpret_borrow<py::object>(text);
  } else {
    throw py::type_error("peer text must be str or bytes, not " +
                         std::string(py::str(text.get_type().attr("__name__"))));
  }
  return std::string(py::bytes(decoded.attr("encode")("utf-8", "surrogatepass")));
}

}  // namespace

void bind_peer_text(py::module_& module) {
  py::module_ peer_text = module.def_submodule(
      "peer_text", "coupler/wire/peer_text.hpp: text a peer chose made safe to show in a log line or a reply.");
  peer_text.attr("limit") = kPeerTextLimit;
  peer_text.def(
      "shown", [](const py::handle& text, std::size_t limit) { return shown_peer_text(utf8_of(text), limit); },
      py::arg("text"), py::arg("limit") = kPeerTextLimit,
      "`text` (str, or bytes read as UTF-8) as one printable line: control, format and separator characters and "
      "backslashes escaped, "
      "cut to `limit` characters with an ellipsis saying how long the original was.");
}

}  // namespace coupler::python
