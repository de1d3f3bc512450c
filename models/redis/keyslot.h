#pragma once

#include <QByteArrayView>

namespace lantern {

/** Redis Cluster's hash slots: 16384 of them, a key's slot the CRC16 (XMODEM) of its hash tag or,
    when it has none, of the whole key (the cluster specification, "Keys distribution model"). */
namespace keyslot {

constexpr int SlotCount = 16384;

/** The part of `key` that is hashed: the text between the first '{' and the next '}' when that
    text is not empty, else the whole key. */
QByteArrayView hashedPart(QByteArrayView key);
/** CRC16-XMODEM (polynomial 0x1021, initial value 0): "123456789" gives 0x31C3. */
quint16 crc16(QByteArrayView data);
/** The slot of `key`, 0..16383, as CLUSTER KEYSLOT answers it. */
int of(QByteArrayView key);

} // namespace keyslot

} // namespace lantern
