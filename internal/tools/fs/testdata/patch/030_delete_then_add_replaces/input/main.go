package old

func Old() {}
