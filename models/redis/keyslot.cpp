#include "redis/keyslot.h"

#include <array>

namespace lantern::keyslot {

namespace {

constexpr std::array<quint16, 256> makeCrc16Table()
{
    std::array<quint16, 256> table{};
    for (unsigned byte = 0; byte < 256; ++byte) {
        unsigned crc = byte << 8;
        for (int bit = 0; bit < 8; ++bit)
            crc = (crc & 0x8000u) ? (crc << 1) ^ 0x1021u : crc << 1;
        table[byte] = static_cast<quint16>(crc & 0xFFFFu);
    }
    return table;
}

constexpr std::array<quint16, 256> Crc16Table = makeCrc16Table();

} // namespace

quint16 crc16(QByteArrayView data)
{
    unsigned crc = 0;
    for (const char c : data)
        crc = ((crc << 8) & 0xFFFFu) ^ Crc16Table[((crc >> 8) ^ static_cast<unsigned char>(c)) & 0xFFu];
    return static_cast<quint16>(crc);
}

QByteArrayView hashedPart(QByteArrayView key)
{
    const qsizetype open = key.indexOf('{');
    if (open < 0)
        return key;
    const qsizetype close = key.indexOf('}', open + 1);
    if (close < 0 || close == open + 1)
        return key;
    return key.sliced(open + 1, close - open - 1);
}

int of(QByteArrayView key)
{
    return crc16(hashedPart(key)) & (SlotCount - 1);
}

} // namespace lantern::keyslot
