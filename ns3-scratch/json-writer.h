// SPDX-License-Identifier: GPL-2.0-only
/*
 * A minimal streaming JSON writer for the scenario's result (no dependency).
 */
#ifndef LANLOSS_JSON_WRITER_H
#define LANLOSS_JSON_WRITER_H

#include <cmath>
#include <cstdint>
#include <iomanip>
#include <ostream>
#include <sstream>
#include <string>
#include <vector>

namespace lanloss
{

/** Writes nested objects/arrays; keys and commas are handled by the writer. */
class JsonWriter
{
  public:
    explicit JsonWriter(std::ostream& os)
        : m_os(os)
    {
    }

    JsonWriter& BeginObject(const std::string& key = "")
    {
        Prefix(key);
        m_os << "{";
        m_first.push_back(true);
        return *this;
    }

    JsonWriter& EndObject()
    {
        m_first.pop_back();
        m_os << "}";
        return *this;
    }

    JsonWriter& BeginArray(const std::string& key = "")
    {
        Prefix(key);
        m_os << "[";
        m_first.push_back(true);
        return *this;
    }

    JsonWriter& EndArray()
    {
        m_first.pop_back();
        m_os << "]";
        return *this;
    }

    JsonWriter& Field(const std::string& key, const std::string& v)
    {
        Prefix(key);
        Quote(v);
        return *this;
    }

    JsonWriter& Field(const std::string& key, const char* v)
    {
        return Field(key, std::string(v));
    }

    JsonWriter& Field(const std::string& key, bool v)
    {
        Prefix(key);
        m_os << (v ? "true" : "false");
        return *this;
    }

    JsonWriter& Field(const std::string& key, uint64_t v)
    {
        Prefix(key);
        m_os << v;
        return *this;
    }

    JsonWriter& Field(const std::string& key, uint32_t v)
    {
        return Field(key, static_cast<uint64_t>(v));
    }

    JsonWriter& Field(const std::string& key, int64_t v)
    {
        Prefix(key);
        m_os << v;
        return *this;
    }

    /** Doubles with full precision; NaN and infinities become null. */
    JsonWriter& Field(const std::string& key, double v)
    {
        Prefix(key);
        if (std::isfinite(v))
        {
            std::ostringstream s;
            s << std::setprecision(17) << v;
            m_os << s.str();
        }
        else
        {
            m_os << "null";
        }
        return *this;
    }

  private:
    void Prefix(const std::string& key)
    {
        if (!m_first.empty())
        {
            if (!m_first.back())
            {
                m_os << ",";
            }
            m_first.back() = false;
        }
        if (!key.empty())
        {
            Quote(key);
            m_os << ":";
        }
    }

    void Quote(const std::string& s)
    {
        m_os << '"';
        for (char c : s)
        {
            switch (c)
            {
            case '"':
                m_os << "\\\"";
                break;
            case '\\':
                m_os << "\\\\";
                break;
            case '\n':
                m_os << "\\n";
                break;
            default:
                if (static_cast<unsigned char>(c) < 0x20)
                {
                    m_os << "\\u" << std::hex << std::setw(4) << std::setfill('0') << int(c)
                         << std::dec;
                }
                else
                {
                    m_os << c;
                }
            }
        }
        m_os << '"';
    }

    std::ostream& m_os;
    std::vector<bool> m_first;
};

} // namespace lanloss

#endif
