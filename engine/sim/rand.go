package sim

// Rand is a small deterministic generator (splitmix64). A run is a pure
// function of its inputs, so every random choice comes from here.
type Rand struct{ s uint64 }

// NewRand seeds a generator.
func NewRand(seed uint64) Rand { return Rand{s: seed} }

// Uint64 returns the next value.
func (r *Rand) Uint64() uint64 {
	r.s += 0x9e3779b97f4a7c15
	z := r.s
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// Intn returns a value in [0, n); n must be > 0.
func (r *Rand) Intn(n int) int { return int(r.Uint64() % uint64(n)) }

// Chance reports true with probability ppm per million. ppm 0 never draws, so
// runs without failure injection consume no randomness.
func (r *Rand) Chance(ppm int64) bool {
	if ppm <= 0 {
		return false
	}
	if ppm >= 1000000 {
		return true
	}
	return r.Uint64()%1000000 < uint64(ppm)
}
