package realtime

// What the package's external tests need of its insides.
var (
	FIFO    = fifo
	Restore = restore
)
