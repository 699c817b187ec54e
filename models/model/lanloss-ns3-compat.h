// SPDX-License-Identifier: GPL-2.0-only
/**
 * @file
 * @ingroup lanloss
 * The ns-3 API differences between the releases the module builds against, each behind one
 * spelling the module uses everywhere.
 *
 * LANLOSS_NS3_VERSION = 100 * major + minor of the ns-3 the module is built against comes from
 * ns3/lanloss-ns3-version.h, which models/CMakeLists.txt generates (from NS3_VER inside an ns-3
 * source tree, from NS3_VERSION_TAG against the PyPI wheel); a development tree ("3-dev")
 * counts as the newest release. Built and tested
 * at 3.37 (Debian's source package) and 3.44 (the wheel); the switch points between them are
 * the releases ns-3's change notes name for each API (docs/building.md).
 */
#ifndef LANLOSS_NS3_COMPAT_H
#define LANLOSS_NS3_COMPAT_H

#include "ns3/attribute-accessor-helper.h"
#include "ns3/enum.h"
#include "ns3/lanloss-ns3-version.h"

/**
 * `override` for Application::AssignStreams, which became virtual in ns-3 3.42 (the 3.42
 * release is the earliest checked; in 3.37 it is a plain member, so the derived one is called
 * only through a pointer to the derived class).
 */
#if LANLOSS_NS3_VERSION >= 342
#define LANLOSS_OVERRIDE_APPLICATION_ASSIGN_STREAMS override
#else
#define LANLOSS_OVERRIDE_APPLICATION_ASSIGN_STREAMS
#endif

namespace ns3
{
namespace lanloss_compat
{

/**
 * The attribute accessor of an enum-typed data member. From ns-3 3.41 EnumValue is a template
 * over the enum, so the accessor names the enum type; before, EnumValue held an int and the
 * accessor deduced everything from the member pointer.
 * @tparam E the enum type of the member
 * @tparam M the member pointer type (deduced)
 * @param member pointer to the data member
 * @return the accessor
 */
template <typename E, typename M>
Ptr<const AttributeAccessor>
MakeEnumAccessor(M member)
{
#if LANLOSS_NS3_VERSION >= 341
    return ns3::MakeEnumAccessor<E>(member);
#else
    return ns3::MakeEnumAccessor(member);
#endif
}

} // namespace lanloss_compat
} // namespace ns3

#endif // LANLOSS_NS3_COMPAT_H
