package f

func a() {
	return 1
}

func b() {
	return 2
}
