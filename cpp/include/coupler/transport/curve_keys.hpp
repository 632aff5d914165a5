#pragma once
// CurveZMQ keys from disk, in ZeroMQ's certificate format (the files
// `coupler keygen`, czmq and pyzmq's zmq.auth write): NAME.key holds a public
// key, NAME.key_secret the pair.

#include <string>
#include <vector>

namespace coupler {

// Both keys in Z85 text, 40 characters each.
struct CurveKeyPair {
  std::string public_key;
  std::string secret_key;
};

// The key pair of a NAME.key_secret file; throws coupler::Error naming the
// file and the problem when it cannot be read or holds no valid pair, or when
// its mode lets group or others read or write it (as ssh refuses such a key:
// a secret others can read is no longer secret, so it is not used).
CurveKeyPair load_curve_key_pair(const std::string& path);

// The public key of a NAME.key (or NAME.key_secret) file.
std::string load_curve_public_key(const std::string& path);

// The public keys of every *.key file in `directory`, in file name order: a
// server's allow-list. Throws when the directory cannot be read, when a file
// in it is not a certificate, or when it holds no key at all (a server that
// would refuse everyone is a mistake, not a configuration).
std::vector<std::string> load_curve_public_keys(const std::string& directory);

}  // namespace coupler
