#include "models/kv_send.hpp"

namespace engramsim {

const char* to_string(KvSend k) { return kKvSendNames.name(k); }

}  // namespace engramsim
