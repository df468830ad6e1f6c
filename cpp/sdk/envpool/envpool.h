// envpool's C++ SDK: everything a family of environments needs, in one
// include. A family built against it (envpool_add_extension in CMake, or
// envpool.cpp_extension.load in Python) is loaded into the engine at run
// time and gets everything a built-in family gets.
//
// The v1 API (these names and their meaning are kept):
//   cpp/core/env.h     Env (Seed, Reset, Step, Prepare, RenderSize, Render,
//                      rng_),
//                      StateRow (out[key]), ActionRow (action[key]), StepResult
//                      (reward, terminated, truncated, discount)
//   cpp/core/spec.h    EnvSpec (AddState, AddAction, state, action),
//                      StateKey<T>, ActionKey<T>, ArraySpec, Spec<T>, DType,
//                      Config (Get<T>, Has, At, Set, entries), ConfigValue, kInf
//   cpp/core/family.h  Family (name, defaults, make_spec, make_env,
//                      make_raw_stepper, id_or_name_keys, steps_elsewhere,
//                      kind, task_module, bench), FamilyOf<E>,
//                      RegisterFamily, FamilyRegistrar
// Anything else these headers declare is the engine's business.
//
// A module registers its families as the built-in ones do, with one static
// FamilyRegistrar whose function calls RegisterFamily; the entry points
// below hand them to the engine when the module is loaded.
#ifndef ENVPOOL_ENVPOOL_H_
#define ENVPOOL_ENVPOOL_H_

#include <exception>
#include <stdexcept>
#include <string>
#include <vector>

#include "cpp/core/abi.h"
#include "cpp/core/env.h"
#include "cpp/core/family.h"
#include "cpp/core/spec.h"

// The module's entry points, read by the engine's loader (_envpool.
// load_families). Weak, so that every source file of a module may include
// this header; C linkage and plain C types for the stamp, which the engine
// reads before it trusts any C++ type across the boundary.
extern "C" {

__attribute__((weak, visibility("default"))) const char* envpool_extension_abi() { return ENVPOOL_ABI_STAMP; }

__attribute__((weak, visibility("default"))) const char* envpool_extension_compiler() {
  return ENVPOOL_ABI_COMPILER_VERSION;
}

// Runs the module's FamilyRegistrars and moves the families they registered
// into *out (a std::vector<envpool::Family>, trusted once the stamps agree).
// Returns 0, or 1 with *error set when a registration threw
// std::invalid_argument (the engine raises ValueError), 2 for any other
// exception (ImportError).
__attribute__((weak, visibility("default"))) int envpool_extension_families(void* out, const char** error) {
  static std::string message;
  auto* families = static_cast<std::vector<envpool::Family>*>(out);
  try {
    for (void (*fn)() : envpool::FamilyRegistrations()) fn();
    for (envpool::Family& f : envpool::Families()) families->push_back(std::move(f));
    envpool::Families().clear();
    return 0;
  } catch (const std::invalid_argument& e) {
    message = e.what();
  } catch (const std::exception& e) {
    message = e.what();
    *error = message.c_str();
    return 2;
  } catch (...) {
    message = "unknown exception";
    *error = message.c_str();
    return 2;
  }
  *error = message.c_str();
  return 1;
}

}  // extern "C"

#endif  // ENVPOOL_ENVPOOL_H_
