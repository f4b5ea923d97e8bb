// 2^32 x 2^31 bf16: 2^64 bytes, which wraps around to 0 in 64 bits.
func.func @main(%x: tensor<4294967296x2147483648xbf16>) -> tensor<4294967296x2147483648xbf16> {
  return %x : tensor<4294967296x2147483648xbf16>
}
