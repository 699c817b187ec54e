// SPDX-License-Identifier: GPL-2.0-only
#include "lan-spec.h"

#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <sstream>

namespace ns3
{

// Parse without ns-3's abort-on-error constructors, so a bad file is an exception.
static DataRate
ParseRate(const std::string& text)
{
    DataRateValue v;
    if (!v.DeserializeFromString(text, MakeDataRateChecker()))
    {
        throw LanSpecError("cannot parse rate '" + text + "'");
    }
    return v.Get();
}

static Time
ParseTime(const std::string& text)
{
    TimeValue v;
    if (!v.DeserializeFromString(text, MakeTimeChecker()) || v.Get().IsNegative())
    {
        throw LanSpecError("cannot parse delay '" + text + "'");
    }
    return v.Get();
}

static std::string
Name(const char* prefix, uint32_t i)
{
    return std::string(prefix) + std::to_string(i + 1);
}

/** Senders s1.. on @p senderSwitch, then receivers r1.. on receiverSwitch(j), in the
 *  order lanloss/topology.py gives them (node ids and MACs follow it). */
static void
AddHosts(LanSpec& spec,
         uint32_t senders,
         uint32_t receivers,
         DataRate edgeRate,
         DataRate senderRate,
         Time linkDelay,
         const std::string& senderSwitch,
         const std::function<std::string(uint32_t)>& receiverSwitch)
{
    for (uint32_t i = 0; i < senders; ++i)
    {
        spec.hosts.push_back({Name("s", i), "sender"});
        spec.links.push_back({Name("s", i), senderSwitch, senderRate, linkDelay});
    }
    for (uint32_t j = 0; j < receivers; ++j)
    {
        spec.hosts.push_back({Name("r", j), "receiver"});
        spec.links.push_back({Name("r", j), receiverSwitch(j), edgeRate, linkDelay});
    }
    spec.AddDefaultFlows();
}

LanSpec
LanSpec::Star(uint32_t senders,
              uint32_t receivers,
              DataRate edgeRate,
              DataRate senderRate,
              Time linkDelay)
{
    LanSpec spec;
    spec.switches.push_back("sw1");
    AddHosts(spec, senders, receivers, edgeRate, senderRate, linkDelay, "sw1", [](uint32_t) {
        return std::string("sw1");
    });
    return spec;
}

LanSpec
LanSpec::TwoTier(uint32_t senders,
                 uint32_t receivers,
                 uint32_t edgeSwitches,
                 DataRate edgeRate,
                 DataRate senderRate,
                 DataRate backboneRate,
                 Time linkDelay)
{
    LanSpec spec;
    spec.switches.push_back("core");
    for (uint32_t e = 0; e < edgeSwitches; ++e)
    {
        spec.switches.push_back(Name("edge", e));
        spec.links.push_back({Name("edge", e), "core", backboneRate, linkDelay});
    }
    // receivers off the senders' edge switch, if there is another
    auto edgeOf = [edgeSwitches](uint32_t j) {
        return Name("edge", edgeSwitches == 1 ? 0 : 1 + j % (edgeSwitches - 1));
    };
    AddHosts(spec, senders, receivers, edgeRate, senderRate, linkDelay, "edge1", edgeOf);
    return spec;
}

LanSpec
LanSpec::TwoSite(uint32_t senders,
                 uint32_t receivers,
                 DataRate edgeRate,
                 DataRate senderRate,
                 DataRate backboneRate,
                 Time linkDelay,
                 Time wanDelay)
{
    LanSpec spec;
    spec.switches = {"siteA", "siteB"};
    spec.links.push_back({"siteA", "siteB", backboneRate, wanDelay});
    AddHosts(spec, senders, receivers, edgeRate, senderRate, linkDelay, "siteA", [](uint32_t) {
        return std::string("siteB");
    });
    return spec;
}

void
LanSpec::AddDefaultFlows()
{
    auto senders = HostsWithRole("sender");
    auto receivers = HostsWithRole("receiver");
    if (senders.empty() || receivers.empty())
    {
        return;
    }
    const std::size_t n = std::max(senders.size(), receivers.size());
    for (std::size_t k = 0; k < n; ++k)
    {
        flows.push_back({senders[k % senders.size()], receivers[k % receivers.size()], DataRate(0)});
    }
}

std::vector<std::string>
LanSpec::HostsWithRole(const std::string& role) const
{
    std::vector<std::string> names;
    for (const auto& h : hosts)
    {
        if (h.role == role)
        {
            names.push_back(h.name);
        }
    }
    return names;
}

void
LanSpec::Validate() const
{
    std::set<std::string> names;
    std::set<std::string> hostNames;
    for (const auto& s : switches)
    {
        if (!names.insert(s).second)
        {
            throw LanSpecError("duplicate node name '" + s + "'");
        }
    }
    for (const auto& h : hosts)
    {
        if (!names.insert(h.name).second)
        {
            throw LanSpecError("duplicate node name '" + h.name + "'");
        }
        if (h.role != "sender" && h.role != "receiver" && h.role != "host")
        {
            throw LanSpecError("host '" + h.name + "' has unknown role '" + h.role + "'");
        }
        hostNames.insert(h.name);
    }
    std::map<std::string, int> degree;
    // union-find to reject loops: a switched LAN without STP must be a tree
    std::map<std::string, std::string> parent;
    for (const auto& n : names)
    {
        parent[n] = n;
    }
    std::function<std::string(const std::string&)> find = [&](const std::string& x) {
        return parent[x] == x ? x : parent[x] = find(parent[x]);
    };
    for (const auto& l : links)
    {
        for (const auto& end : {l.a, l.b})
        {
            if (!names.count(end))
            {
                throw LanSpecError("link " + l.a + " - " + l.b + " names unknown node '" + end +
                                   "'");
            }
            ++degree[end];
        }
        if (l.a == l.b)
        {
            throw LanSpecError("link " + l.a + " - " + l.b + " connects a node to itself");
        }
        if (hostNames.count(l.a) && hostNames.count(l.b))
        {
            throw LanSpecError("link " + l.a + " - " + l.b + " joins two hosts without a switch");
        }
        if (l.rate.GetBitRate() == 0)
        {
            throw LanSpecError("link " + l.a + " - " + l.b + " has no data rate");
        }
        std::string ra = find(l.a);
        std::string rb = find(l.b);
        if (ra == rb)
        {
            throw LanSpecError("link " + l.a + " - " + l.b +
                               " closes a loop (a switched LAN without STP must be a tree)");
        }
        parent[ra] = rb;
    }
    for (const auto& h : hosts)
    {
        if (degree[h.name] != 1)
        {
            throw LanSpecError("host '" + h.name + "' must have exactly one link, has " +
                               std::to_string(degree[h.name]));
        }
    }
    for (const auto& f : flows)
    {
        for (const auto& end : {f.from, f.to})
        {
            if (!hostNames.count(end))
            {
                throw LanSpecError("flow " + f.from + " -> " + f.to + " names unknown host '" +
                                   end + "'");
            }
        }
        if (find(f.from) != find(f.to))
        {
            throw LanSpecError("flow " + f.from + " -> " + f.to + " has no path");
        }
    }
}

std::string
LanSpec::ToText() const
{
    std::ostringstream out;
    for (const auto& s : switches)
    {
        out << "switch " << s << "\n";
    }
    for (const auto& h : hosts)
    {
        out << "host " << h.name << " " << h.role << "\n";
    }
    for (const auto& l : links)
    {
        out << "link " << l.a << " " << l.b << " " << l.rate.GetBitRate() << "bps "
            << l.delay.GetNanoSeconds() << "ns\n";
    }
    for (const auto& f : flows)
    {
        out << "flow " << f.from << " " << f.to;
        if (f.rate.GetBitRate() > 0)
        {
            out << " " << f.rate.GetBitRate() << "bps";
        }
        out << "\n";
    }
    return out.str();
}

LanSpec
LanSpec::FromFile(const std::string& path)
{
    std::ifstream in(path);
    if (!in)
    {
        throw LanSpecError("cannot read topology file '" + path + "'");
    }
    LanSpec spec;
    std::string line;
    int lineNo = 0;
    while (std::getline(in, line))
    {
        ++lineNo;
        auto hash = line.find('#');
        if (hash != std::string::npos)
        {
            line.erase(hash);
        }
        std::istringstream words(line);
        std::vector<std::string> w;
        for (std::string x; words >> x;)
        {
            w.push_back(x);
        }
        if (w.empty())
        {
            continue;
        }
        auto bad = [&](const std::string& why) {
            return LanSpecError(path + ":" + std::to_string(lineNo) + ": " + why + ": '" + line +
                                "'");
        };
        try
        {
            if (w[0] == "switch" && w.size() == 2)
            {
                spec.switches.push_back(w[1]);
            }
            else if (w[0] == "host" && w.size() == 3)
            {
                spec.hosts.push_back({w[1], w[2]});
            }
            else if (w[0] == "link" && w.size() == 5)
            {
                spec.links.push_back({w[1], w[2], ParseRate(w[3]), ParseTime(w[4])});
            }
            else if (w[0] == "flow" && (w.size() == 3 || w.size() == 4))
            {
                spec.flows.push_back({w[1], w[2], w.size() == 4 ? ParseRate(w[3]) : DataRate(0)});
            }
            else
            {
                throw bad("expected switch/host/link/flow");
            }
        }
        catch (const LanSpecError& e)
        {
            throw bad(e.what());
        }
    }
    if (spec.flows.empty())
    {
        spec.AddDefaultFlows();
    }
    return spec;
}

} // namespace ns3
