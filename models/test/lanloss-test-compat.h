// SPDX-License-Identifier: GPL-2.0-only
/*
 * The ns-3 test API under one spelling for every release the module builds against
 * (LANLOSS_NS3_VERSION: see ns3/lanloss-ns3-compat.h).
 */
#ifndef LANLOSS_TEST_COMPAT_H
#define LANLOSS_TEST_COMPAT_H

#include "ns3/lanloss-ns3-compat.h"
#include "ns3/test.h"

#if LANLOSS_NS3_VERSION < 342
namespace ns3
{
/**
 * TestCase::Duration, the scoped enum of ns-3 3.42 on, under its earlier name: the unscoped
 * TestCase::TestDuration, whose enumerators Duration::QUICK etc. name just the same.
 */
using Duration = TestCase::TestDuration;
} // namespace ns3
#endif

#endif // LANLOSS_TEST_COMPAT_H
