module example.com/gosave

go 1.21
