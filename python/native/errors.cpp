#include <exception>

#include <coupler/wire/error.hpp>

#include "bindings.hpp"

namespace py = pybind11;

namespace coupler::python {
namespace {

void raise(const char* name, const py::tuple& arguments) {
  py::object type = py::module_::import("coupler.wire.errors").attr(name);
  PyErr_SetObject(type.ptr(), type(*arguments).ptr());
}

}  // namespace

void register_errors() {
  py::register_exception_translator([](std::exception_ptr thrown) {
    try {
      if (thrown) std::rethrow_exception(thrown);
    } catch (const ReconnectedError& e) {
      raise("ReconnectedError", py::make_tuple(e.what()));
    } catch (const SceneChangedError& e) {
      raise("SceneChangedError", py::make_tuple(e.what()));
    } catch (const TimeoutError& e) {
      raise("TimeoutError", py::make_tuple(e.what()));
    } catch (const ProtocolError& e) {
      py::object code = py::module_::import("coupler.wire.messages").attr("ErrorCode")(static_cast<int>(e.code()));
      raise("ProtocolError", py::make_tuple(e.text(), code));
    } catch (const ExtensionNotSupportedError& e) {
      // The Python class is built from its parts; the C++ one keeps the whole text and the extension.
      py::object type = py::module_::import("coupler.wire.errors").attr("ExtensionNotSupportedError");
      py::object error = type.attr("__new__")(type);
      py::module_::import("builtins").attr("Exception").attr("__init__")(error, e.what());
      error.attr("extension") = e.extension();
      PyErr_SetObject(type.ptr(), error.ptr());
    } catch (const RemoteError& e) {
      raise("RemoteError", py::make_tuple(e.code(), e.text()));
    } catch (const Error& e) {
      raise("Error", py::make_tuple(e.what()));
    }
  });
}

}  // namespace coupler::python
