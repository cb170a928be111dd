package main

import (
	_ "cloud.google.com/go/civil"
	_ "cloud.google.com/go/spanner"
	_ "cloud.google.com/go/spanner/apiv1/spannerpb"
	_ "gonum.org/v1/plot"
	_ "gonum.org/v1/plot/plotter"
	_ "gonum.org/v1/plot/vg"
	_ "gonum.org/v1/plot/vg/vgimg"
	_ "google.golang.org/api/option"
	_ "google.golang.org/grpc"
)

func main() {}
