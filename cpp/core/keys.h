// The names of state and action arrays: "obs" or "obs:<key>" (a dict
// observation), "info:<key>", "action" or "action:<key>" (a dict action),
// and the engine's "final:"-prefixed copies of obs and info keys (same_step
// autoreset). The one parser of them in C++.
#ifndef ENVPOOL_CORE_KEYS_H_
#define ENVPOOL_CORE_KEYS_H_

#include <string>

namespace envpool {

struct KeyName {
  enum Group { kObs, kInfo, kAction, kOther };  // kOther: reward, terminated, ...
  Group group = kOther;
  bool final = false;  // a "final:" copy
  std::string key;     // within its group; "" for a plain "obs" or "action"
};

inline KeyName ParseKeyName(std::string name) {
  KeyName k;
  auto starts = [&](const char* prefix) { return name.rfind(prefix, 0) == 0; };
  if (starts("final:")) {
    k.final = true;
    name = name.substr(6);
  }
  auto group = [&](const char* word, KeyName::Group g) {
    const std::string w(word);
    if (name == w) {
      k.group = g;
      return true;
    }
    if (name.rfind(w + ":", 0) == 0) {
      k.group = g;
      k.key = name.substr(w.size() + 1);
      return true;
    }
    return false;
  };
  if (!group("obs", KeyName::kObs) && !group("info", KeyName::kInfo) && !group("action", KeyName::kAction))
    k.key = name;
  return k;
}

inline std::string FinalName(const std::string& name) { return "final:" + name; }

// How messages name an action key: "action", or "action['<key>']".
inline std::string ActionLabel(const std::string& name) {
  const KeyName k = ParseKeyName(name);
  return k.key.empty() ? "action" : "action['" + k.key + "']";
}

}  // namespace envpool

#endif  // ENVPOOL_CORE_KEYS_H_
