// runtime: tensor_format (in progress).
