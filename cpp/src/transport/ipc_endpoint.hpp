#pragma once
// The socket file behind a server's ipc:// endpoint: who else may be
// listening on it, who may connect to it, and whether it is still ours.

#include <optional>
#include <string>

#include <sys/types.h>

namespace coupler::detail {

// The file path of an ipc:// address; nullopt for other transports and for
// Linux's abstract names (ipc://@name), which have no file.
std::optional<std::string> ipc_path(const std::string& address);

// Throws coupler::Error ("address in use by a running server") when a
// process accepts connections on the socket file at `path`, and when there
// is something there that is not a socket (a regular file, a folder, a
// link): binding would delete it. A socket no one listens on (left by a
// server that was killed) is not an error: binding replaces it. The probe
// is one non-blocking connect, so it never waits.
void refuse_if_served(const std::string& path);

// Whether `address` is a Linux abstract socket (ipc://@name): it has no file
// and so no permissions; any local user can connect. Served only with CURVE.
bool is_abstract_ipc(const std::string& address);
// The one-line refusal of an abstract address bound without CURVE.
std::string abstract_ipc_refusal(const std::string& address);

// The identity (device, inode) of the file at `path`, or nullopt when there
// is none; a server removes its socket file on exit only while it is still
// the one it bound, never a file another server put there since.
struct FileIdentity {
  dev_t device;
  ino_t inode;
  bool operator==(const FileIdentity& other) const { return device == other.device && inode == other.inode; }
};
std::optional<FileIdentity> file_identity(const std::string& path);

// Limits the socket file to its owner (mode 0600) whatever the umask, so
// another local user cannot drive the simulation. Throws coupler::Error
// when the mode cannot be set.
void restrict_to_owner(const std::string& path);

}  // namespace coupler::detail
