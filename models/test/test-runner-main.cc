// SPDX-License-Identifier: GPL-2.0-only
/*
 * Runs the lanloss module's ns-3 TestSuites with ns-3's own TestRunner
 * (same flags as ns-3's test-runner: --list, --suite=NAME, --verbose, ...).
 */
#include "ns3/test.h"

int
main(int argc, char* argv[])
{
    return ns3::TestRunner::Run(argc, argv);
}
